// A small LangGraph.js graph (no LLM: deterministic nodes) whose planner
// asks the user through askonce's gate mode. The planner node asks the
// same question ASKS times (default 3), as a planner stuck in a loop
// would; askonce lets the graph interrupt once, hands the answer over
// once, and answers every later ask with proceed and the fallback
// directive.
//
//   ASKONCE_URL=http://127.0.0.1:8080 node graph.mjs "hot frozen cheese"
//
// Environment: ASKONCE_URL (default http://127.0.0.1:8080), ASKONCE_API_KEY,
// ANSWER (what "the user" answers at the interrupt; default "hot"), ASKS.
// Prints one JSON line: the interrupts, what each ask got, the job.
//
// With STATE_FILE the graph's checkpoints are kept in that file and the
// run stops at the interrupt instead of answering it: it prints
// {"paused": {jobId, threadId, interrupt}} and exits. A person answers on
// the answer page (or Slack, or email); a later run with the same
// STATE_FILE and THREAD_ID, in a new process, resumes the graph from its
// checkpoint with that answer ({"waiting": ...} while there is none yet)
// and prints the report as above.
import { randomUUID } from "node:crypto";
import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { ANSWERED_ELSEWHERE, answeredElsewhere, api, askUser, openGateJob, reportPlan } from "./askonce.mjs";
import { FileSaver } from "./filesaver.mjs";

const call = api(process.env.ASKONCE_URL ?? "http://127.0.0.1:8080", process.env.ASKONCE_API_KEY ?? "");
const goal = process.argv[2] ?? "hot frozen cheese";
const asks = Number(process.env.ASKS ?? 3);
const question = { type: "SELECT_ONE", text: "Serve the cheese hot or frozen?", options: ["hot", "frozen"] };

const State = Annotation.Root({
  goal: Annotation(),
  jobId: Annotation(),
  outcomes: Annotation(),
  report: Annotation(),
});

const graph = new StateGraph(State)
  .addNode("open", async (s) => ({ jobId: await openGateJob(call, s.goal, randomUUID()) }))
  .addNode("plan", async (s) => {
    // Deterministic planning: ask (too often), then plan with what came back.
    const memo = {};
    const outcomes = [];
    for (let i = 0; i < asks; i++) outcomes.push(await askUser(call, s.jobId, question, memo));
    const answer = outcomes.find((o) => o.action === "resume")?.answer;
    const assumptions = answer ? [] : ["temperature: hot (not asked again: " + outcomes.at(-1).directive + ")"];
    const temp = answer ?? "hot";
    const r = await reportPlan(call, s.jobId, `Serve ${temp} cheese`, [
      { id: "t1", title: `Bring the cheese to ${temp}`, dependsOn: [] },
      { id: "t2", title: "Serve it", dependsOn: ["t1"] },
    ], assumptions);
    return { outcomes, report: r };
  })
  .addEdge(START, "open")
  .addEdge("open", "plan")
  .addEdge("plan", END)
  .compile({ checkpointer: process.env.STATE_FILE ? new FileSaver(process.env.STATE_FILE) : new MemorySaver() });

const threadId = process.env.THREAD_ID ?? randomUUID();
const config = { configurable: { thread_id: threadId } };
const pendingInterrupts = async () => (await graph.getState(config)).tasks.flatMap((t) => t.interrupts ?? []);
const interrupts = [];
let out;
if (process.env.STATE_FILE && process.env.THREAD_ID) {
  // After a restart: the graph is paused at its interrupt, in the file.
  const pending = await pendingInterrupts();
  if (pending.length === 0) throw new Error(`thread ${threadId} is not paused at an interrupt in ${process.env.STATE_FILE}`);
  const { jobId } = pending[0].value;
  if (!(await answeredElsewhere(call, jobId))) {
    console.log(JSON.stringify({ waiting: { jobId, threadId } }));
    process.exit(0);
  }
  interrupts.push(pending[0].value);
  out = await graph.invoke(new Command({ resume: ANSWERED_ELSEWHERE }), config);
} else {
  out = await graph.invoke({ goal }, config);
  if (process.env.STATE_FILE) {
    const pending = await pendingInterrupts();
    if (pending.length > 0) {
      console.log(JSON.stringify({ paused: { jobId: pending[0].value.jobId, threadId, interrupt: pending[0].value } }));
      process.exit(0);
    }
  }
}
// Each pause is a person's turn; a loop bug would show as more than one.
for (let turn = 0; turn < 5; turn++) {
  const pending = await pendingInterrupts();
  if (pending.length === 0) break;
  interrupts.push(pending[0].value);
  out = await graph.invoke(new Command({ resume: process.env.ANSWER ?? "hot" }), config);
}
const events = (await call("GET", `/jobs/${out.jobId}/events`)).events.map((e) => e.type);
console.log(JSON.stringify({
  jobId: out.jobId,
  interrupts,
  outcomes: out.outcomes,
  action: out.report.action,
  status: out.report.job.status,
  title: out.report.job.title,
  events,
}));
