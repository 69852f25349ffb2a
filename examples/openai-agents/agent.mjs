// A support agent (OpenAI Agents SDK, @openai/agents) whose refund tool
// needs a person's decision, taken through askonce (askonce-decision.mjs).
// Each command is a process of its own, so the run survives a restart
// between them:
//
//   node agent.mjs start "Refund order A-17, the parcel arrived broken"
//     -> {"paused": {jobId, question, answerUrl}}: the person answers at answerUrl
//   node agent.mjs resume
//     -> {"waiting": ...} until they have; then {"done": {job, output}}
//
// Environment: ASKONCE_URL (default http://127.0.0.1:8080),
// ASKONCE_API_KEY, STATE_FILE (the job and the serialized RunState;
// default askonce-openai-agents/run-state.json in the temporary folder, so
// nothing is left in the folder it runs in), MODEL: "scripted" for the offline model of
// scripted-model.mjs (what the tests use), else an OpenAI model name
// (default gpt-5-mini; needs OPENAI_API_KEY).
import { Agent, setTracingDisabled, tool } from "@openai/agents";
import { Askonce } from "@askonce/client";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { resumeRun, startRun } from "./askonce-decision.mjs";
import { ScriptedModel } from "./scripted-model.mjs";

// issueRefund is the tool that needs a person's decision: the SDK stops the
// run before each call until the call is approved or rejected.
export const issueRefund = tool({
  name: "issue_refund",
  description: "Refund an order. A person must allow each refund.",
  parameters: z.object({ order: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  execute: async ({ order, amount }) => `refunded ${amount} EUR for order ${order}`,
});

export function supportAgent(model) {
  return new Agent({
    name: "Support",
    instructions: "Resolve the customer's request. Refund through issue_refund; then say what was done, one step per line.",
    tools: [issueRefund],
    model,
  });
}

async function main() {
  const [command, goal] = process.argv.slice(2);
  const modelName = process.env.MODEL ?? "gpt-5-mini";
  if (modelName === "scripted") setTracingDisabled(true);
  const agent = supportAgent(modelName === "scripted" ? new ScriptedModel() : modelName);
  const client = new Askonce({ baseUrl: process.env.ASKONCE_URL ?? "http://127.0.0.1:8080", apiKey: process.env.ASKONCE_API_KEY || undefined });
  const stateFile = process.env.STATE_FILE || join(tmpdir(), "askonce-openai-agents", "run-state.json");
  let out;
  switch (command) {
    case "start":
      out = await startRun({ client, agent, goal: goal ?? "Refund order A-17, the parcel arrived broken", stateFile });
      break;
    case "resume":
      out = await resumeRun({ client, agent, stateFile });
      break;
    default:
      throw new Error("usage: node agent.mjs start [goal] | resume");
  }
  console.log(JSON.stringify(out));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
