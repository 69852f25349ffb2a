// A tool that needs a person's decision, in an OpenAI Agents SDK
// (@openai/agents) run, decided through askonce: the run stops at the
// tool's approval (needsApproval), the decision is askonce's one question
// of the run's gate-mode job (answered on any channel: the answer page,
// Slack, email), and the run resumes from its serialized RunState, in
// this process or one started after a restart. A second decision in the
// same run is not asked: askonce answers proceed, and the question's
// default applies.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { RunState, run } from "@openai/agents";

// The answers of a decision question.
export const APPROVE = "approve";
export const REJECT = "reject";

// decisionQuestion is askonce's typed question for a tool call that
// needs approval: approve or reject, rejecting when nobody says.
export function decisionQuestion(item) {
  return {
    type: "SELECT_ONE",
    text: decisionText(item),
    options: [APPROVE, REJECT],
    default: REJECT,
  };
}

// decisionText asks about a tool call in lines a person reads: the tool's
// name, then one "name: value" line per argument, not the call's JSON.
// The model wrote the name and arguments, so each is made visible: a
// control, format or line-separator character is shown as its \u escape
// (a newline in an argument cannot start a line of its own), and a value
// that is not a string is shown as JSON.
export function decisionText(item) {
  let args = item.arguments ?? "";
  try {
    args = JSON.parse(args || "{}");
  } catch {
    // Not JSON: shown as the text it is.
  }
  const lines = [`Allow ${visible(item.name)}?`];
  if (args && typeof args === "object" && !Array.isArray(args)) {
    for (const [name, value] of Object.entries(args)) lines.push(`${visible(name)}: ${visible(value)}`);
  } else if (args !== "") {
    lines.push(`arguments: ${visible(args)}`);
  }
  return lines.join("\n");
}

// visible is a value as one line of plain text: strings as they are,
// anything else as JSON, with control and invisible characters escaped.
function visible(value) {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return s.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => "\\u" + c.codePointAt(0).toString(16).padStart(4, "0"));
}

// saveRun writes what a later process needs to resume: the job and the
// serialized RunState, through a temporary file.
async function saveRun(path, jobId, state) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path + ".tmp", JSON.stringify({ jobId, state: state.toString() }));
  await rename(path + ".tmp", path);
}

/**
 * startRun opens the run's gate-mode job and runs agent on goal. If a tool
 * call needs a decision, askonce asks it (the answer link goes to the
 * person), the RunState is saved to stateFile, and it returns
 * { paused: { jobId, question, answerUrl } }; else the finished run
 * ({ done }, see finish).
 */
export async function startRun({ client, agent, goal, stateFile }) {
  const job = await client.createJob({ goal, mode: "gate" });
  const result = await run(agent, goal);
  return settle({ client, agent, jobId: job.jobId, result, stateFile });
}

/**
 * resumeRun reads stateFile in a process that may have just started:
 * while the person has not decided it returns { waiting: { jobId } };
 * once they have, it applies the decision to the saved RunState and runs
 * on, as startRun.
 */
export async function resumeRun({ client, agent, stateFile }) {
  const saved = JSON.parse(await readFile(stateFile, "utf8"));
  const state = await RunState.fromString(agent, saved.state);
  const decided = await decide({ client, jobId: saved.jobId, state });
  if (!decided) return { waiting: { jobId: saved.jobId } };
  const result = await run(agent, state);
  return settle({ client, agent, jobId: saved.jobId, result, stateFile });
}

// settle saves a run stopped at a decision, after asking askonce, or
// finishes a run that has ended.
async function settle({ client, agent, jobId, result, stateFile }) {
  if (result.interruptions?.length) {
    const item = result.interruptions[0].rawItem;
    const r = await client.report(jobId, { question: decisionQuestion(item) });
    if (r.action === "proceed") {
      // The run's one question was asked already: the default, unasked.
      result.state.reject(result.interruptions[0]);
      return settle({ client, agent, jobId, result: await run(agent, result.state), stateFile });
    }
    if (r.action !== "ask" && r.action !== "wait") throw new Error(`askonce answered ${r.action}: ${r.job?.error ?? ""}`);
    await saveRun(stateFile, jobId, result.state);
    return { paused: { jobId, question: r.question, answerUrl: r.job.answerUrl ?? "" } };
  }
  return { done: await finish({ client, jobId, result }) };
}

// decide applies the person's decision, if there is one yet, to the
// saved run's pending approval; false while there is none.
async function decide({ client, jobId, state }) {
  const pending = state.getInterruptions();
  if (pending.length === 0) return true;
  const r = await client.report(jobId, { question: decisionQuestion(pending[0].rawItem) });
  switch (r.action) {
    case "ask":
    case "wait":
      return false;
    case "resume":
    case "proceed": {
      const answer = r.action === "resume" ? r.answer : (r.default ?? REJECT);
      if (answer === APPROVE) state.approve(pending[0]);
      else state.reject(pending[0]);
      return true;
    }
    default:
      throw new Error(`askonce answered ${r.action}: ${r.job?.error ?? ""}`);
  }
}

// finish reports the run's final output to askonce as the job's plan
// (one task per line, under the job's title) and returns the job and the
// output.
async function finish({ client, jobId, result }) {
  const lines = String(result.finalOutput ?? "").split("\n").map((s) => s.trim()).filter(Boolean);
  const { title } = await client.getJob(jobId);
  const r = await client.report(jobId, {
    plan: { title, tasks: lines.map((s, i) => ({ id: `t${i + 1}`, title: s.slice(0, 80), instruction: s, dependsOn: i ? [`t${i}`] : [] })) },
  });
  return { job: r.job, output: result.finalOutput };
}
