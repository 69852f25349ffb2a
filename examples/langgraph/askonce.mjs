// askonce's gate mode for a LangGraph.js graph: askUser is what an "ask
// the user" node calls instead of interrupt(). It reports the question to
// the node's askonce job (POST /jobs/{id}/report) and does what askonce
// answers, so the graph interrupts at most once per job however often the
// node runs or asks.
import { interrupt } from "@langchain/langgraph";

// api calls askonce's HTTP API at base, with key (if any) as the bearer.
export function api(base, key = "") {
  return async function call(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (key) headers.Authorization = `Bearer ${key}`;
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.error?.message ?? JSON.stringify(json)}`);
    return json;
  };
}

// openGateJob creates the job whose one question the graph's nodes share.
export async function openGateJob(call, goal, sessionId) {
  const job = await call("POST", "/jobs", { goal, mode: "gate", sessionId });
  return job.jobId;
}

// ANSWERED_ELSEWHERE is the resume value (Command({ resume })) of an
// interrupt whose question a person answered on another channel: askUser
// then submits nothing and takes the answer from askonce.
export const ANSWERED_ELSEWHERE = "askonce:answered-elsewhere";

// answeredElsewhere reports whether job jobId's question has been
// answered (or declined) on any channel, so a graph paused at its
// interrupt can resume with ANSWERED_ELSEWHERE: in this process or in
// one started after a restart.
export async function answeredElsewhere(call, jobId) {
  const job = await call("GET", `/jobs/${jobId}`);
  return job.clarificationStatus === "answered" || job.clarificationStatus === "skipped";
}

// askUser asks the user question (askonce's typed question: type, text,
// options, default) for job jobId. It returns
//
//   { action: "resume", answer, resolvedPrompt }  the user's answer (once), or
//   { action: "proceed", directive, default }     do not ask: go on without.
//
// "ask" and "wait" become the graph's interrupt(): the resume value
// (Command({ resume: answer })) is submitted as the answer, and the node
// gets it back as "resume". A node re-run after the resume reports again
// and gets "wait" (the question is unanswered until interrupt() returns),
// so the question is never asked twice. memo remembers a proceed within
// the run: askonce fails a job that asks again after its one proceed.
export async function askUser(call, jobId, question, memo = {}) {
  if (memo.proceed) return memo.proceed;
  const r = await call("POST", `/jobs/${jobId}/report`, { question });
  switch (r.action) {
    case "ask":
    case "wait": {
      const answer = interrupt({ jobId, question: r.question, answerUrl: r.job.answerUrl ?? "" });
      // A person who answered elsewhere (the answer page, Slack, email)
      // already gave askonce the answer; the report below hands it over.
      if (answer !== ANSWERED_ELSEWHERE) await call("POST", `/jobs/${jobId}/clarification`, { answer: String(answer) });
      const after = await call("POST", `/jobs/${jobId}/report`, { question });
      return outcome(after, memo);
    }
    default:
      return outcome(r, memo);
  }
}

function outcome(r, memo) {
  switch (r.action) {
    case "resume":
      return { action: "resume", answer: r.answer, resolvedPrompt: r.resolvedPrompt, directive: r.directive ?? "" };
    case "proceed":
      memo.proceed = { action: "proceed", directive: r.directive, default: r.default ?? "" };
      return memo.proceed;
    default:
      throw new Error(`askonce answered ${r.action}: ${r.job?.error ?? "the job cannot go on"}`);
  }
}

// reportPlan closes the job with the graph's plan.
export function reportPlan(call, jobId, title, tasks, assumptions = []) {
  return call("POST", `/jobs/${jobId}/report`, { title, plan: { tasks, assumptions } });
}
