// askUserTool: an AI SDK tool through which a model asks the user, backed by
// an askonce gate-mode job. Whatever the model does, the person is asked at
// most once per job: the first ask_user call reports the question to
// askonce and waits for the answer; every later call gets the answer again
// ("resume") or askonce's fallback directive ("proceed") instead of a second
// question.
import { tool } from "ai";
import { z } from "zod";

/**
 * @param {object} o
 * @param {import("@askonce/client").Askonce} o.client
 * @param {string} o.jobId      a gate-mode job (createJob({ goal, mode: "gate" }))
 * @param {(q: { question: object, answerUrl?: string }) => Promise<string>} o.ask
 *   reaches the person: a prompt, a chat message with the answer link, ...
 *   It is called at most once per job.
 */
export function askUserTool({ client, jobId, ask }) {
  return tool({
    description:
      "Ask the user one clarifying question. Use it only when the goal cannot be planned without the answer. " +
      "It answers at most once per job; afterwards it returns the earlier answer or a directive to proceed without asking.",
    inputSchema: z.object({
      question: z.string().describe("the question, in the user's language"),
      options: z.array(z.string()).min(2).optional().describe("the answers to choose from, when there are a few"),
      default: z.string().optional().describe("the safe answer when the user does not say"),
    }),
    async execute({ question, options, default: def }) {
      const q = options
        ? { type: "SELECT_ONE", text: question, options, default: def ?? options[0] }
        : { type: "FREE_TEXT", text: question, ...(def ? { default: def } : {}) };
      let r = await client.report(jobId, { question: q });
      if (r.action === "ask" || r.action === "wait") {
        const answer = await ask({ question: r.question, answerUrl: r.job.answerUrl });
        await client.answer(jobId, answer);
        r = await client.report(jobId, { question: q });
      }
      switch (r.action) {
        case "resume":
          return { answer: r.answer };
        case "proceed":
          return { answer: r.default ?? null, directive: r.directive };
        default:
          return { error: `askonce answered ${r.action}: ${r.job.error ?? ""}`.trim() };
      }
    },
  });
}

/**
 * planWithAgent runs a model with the ask_user tool on a goal and records the
 * model's final text as the job's plan. It returns the job and the AI SDK's
 * result.
 */
export async function planWithAgent({ client, model, goal, ask, generateText, stepCountIs }) {
  const job = await client.createJob({ goal, mode: "gate" });
  const result = await generateText({
    model,
    system: "Plan the user's goal as short numbered steps. Ask the user only through the ask_user tool.",
    prompt: goal,
    tools: { ask_user: askUserTool({ client, jobId: job.jobId, ask }) },
    stopWhen: stepCountIs(8),
  });
  const steps = result.text.split("\n").map((s) => s.replace(/^\s*\d+[.)]\s*/, "").trim()).filter(Boolean);
  const r = await client.report(job.jobId, {
    plan: {
      title: goal.slice(0, 80),
      tasks: steps.map((s, i) => ({ id: `t${i + 1}`, title: s.slice(0, 80), instruction: s, dependsOn: i ? [`t${i}`] : [] })),
    },
  });
  return { job: r.job, result };
}
