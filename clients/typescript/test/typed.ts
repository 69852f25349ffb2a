// Compiled (never run) by test/types.test.mjs: the client's declarations
// agree with the generated API types, and the types refuse wrong calls.
import { Askonce, AskonceError, type JobView, type ReportResponse } from "../index.js";

export async function typed(c: Askonce): Promise<string> {
  const job: JobView = await c.createJob({ goal: "hot frozen cheese", hardCap: "fallback" }, { respondAsync: true });
  const status: "planning" | "pending" | "success" | "validation_error" | "failed" | "cancelled" | "expired" = job.status;
  const done = await c.answer(job.jobId, "hot");
  const r: ReportResponse = await c.report(job.jobId, { question: { type: "CONFIRM", text: "Sure?" } });
  const page = await c.listJobs({ status: "success", limit: 10 });
  const remembered = await c.createJob({ goal: "hot frozen cheese", memory: { scope: "project", project: "shop", ttl: "720h" } });
  const kept = await c.answer(remembered.jobId, "hot", { dontRemember: true });
  const entries = await c.listMemory({ project: "shop" });
  const forgotten = await c.forgetMemory(entries[0].questionHash, { scope: "project", project: "shop" });
  const from: "session" | "project" | "tenant" | undefined = kept.clarificationMemory?.scope ?? forgotten.scope;
  // @ts-expect-error: memory is listed by project or tenant (a session's answers are its history)
  await c.listMemory({ scope: "session" });
  // @ts-expect-error: no such memory scope
  await c.createJob({ goal: "x", memory: { scope: "galaxy" } });
  const { data } = await c.api.GET("/jobs/{id}", { params: { path: { id: job.jobId } } });
  // @ts-expect-error: hardCap is fallback or fail
  await c.createJob({ goal: "x", hardCap: "sometimes" });
  // @ts-expect-error: a job has no such field
  job.clarificationQuestions;
  try {
    await c.getJob("nope");
  } catch (e) {
    if (e instanceof AskonceError && e.code === "not_found") return "gone";
  }
  return `${from} ${status} ${done.plan?.title} ${r.action} ${page.nextCursor} ${data?.attempts?.length}`;
}
