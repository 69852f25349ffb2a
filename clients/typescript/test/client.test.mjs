// @askonce/client against the real askonce binary (rules interpreter).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Askonce, AskonceError } from "../index.js";
import { binary, startServer, recordingFetch, session } from "./harness.mjs";

const bin = binary();
let server;
before(async () => { if (bin.path) server = await startServer(bin.path); });
after(async () => { await server?.stop(); });
const t = (name, fn) => test(name, { skip: bin.skip }, fn);

t("createJob asks once and the answer plans", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal: "hot frozen cheese", sessionId: session() });
  assert.equal(job.status, "pending");
  assert.equal(job.needsClarification, true);
  assert.deepEqual(job.clarificationOptions, ["hot", "frozen"]);
  const done = await c.answer(job.jobId, "hot");
  assert.equal(done.status, "success");
  assert.equal(done.plan.spec.attributes.temperature, "hot");
  const got = await c.getJob(job.jobId);
  assert.equal(got.clarificationSource, "user");
  assert.ok(got.attempts.length >= 2);
});

t("an invalid answer is an AskonceError with the allowed answers, and the question stays", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal: "Drop the users table", sessionId: session() });
  const err = await c.answer(job.jobId, "tepid").catch((e) => e);
  assert.ok(err instanceof AskonceError);
  assert.equal(err.status, 422);
  assert.equal(err.code, "invalid");
  assert.deepEqual(err.allowed, ["yes", "no"]);
  assert.equal((await c.getJob(job.jobId)).status, "pending");
});

t("a question with fields is answered with an object; a bad one lists every bad field", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const specSchema = { type: "object", required: ["environment", "dry_run"],
    properties: { environment: { enum: ["staging", "production"] }, dry_run: { type: "boolean" } } };
  const job = await c.createJob({ goal: "ship the release", sessionId: session(), specSchema });
  assert.deepEqual(job.clarificationFields.map((f) => f.name), ["environment", "dry_run"]);
  const err = await c.answer(job.jobId, { environment: "qa", dry_run: 3 }).catch((e) => e);
  assert.ok(err instanceof AskonceError);
  assert.deepEqual(err.fields.map((f) => f.name).sort(), ["dry_run", "environment"]);
  assert.deepEqual(err.fields.find((f) => f.name === "environment").allowed, ["staging", "production"]);
  assert.equal((await c.getJob(job.jobId)).status, "pending");
  const done = await c.answer(job.jobId, { environment: "production", dry_run: false });
  assert.equal(done.status, "success");
  assert.deepEqual([done.plan.spec.environment, done.plan.spec.dry_run], ["production", false]);
});

t("a second answer is a conflict carrying the job as it is", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal: "hot frozen cheese", sessionId: session() });
  await c.answer(job.jobId, "hot");
  const err = await c.answer(job.jobId, "frozen").catch((e) => e);
  assert.equal(err.code, "conflict");
  assert.equal(err.job.clarificationAnswer, "hot");
  const missing = await c.getJob(crypto.randomUUID()).catch((e) => e);
  assert.equal(missing.code, "not_found");
});

t("decline applies the default and cancel ends a pending job", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const a = await c.createJob({ goal: "Drop the users table", sessionId: session() });
  const declined = await c.decline(a.jobId);
  assert.deepEqual([declined.status, declined.clarificationAnswer, declined.clarificationSource], ["success", "no", "default"]);
  const b = await c.createJob({ goal: "hot frozen cheese", sessionId: session() });
  assert.equal((await c.cancel(b.jobId)).status, "cancelled");
});

t("iterJobs follows the cursor over every page", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const s = session();
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await c.createJob({ goal: `Write note ${i} in markdown`, sessionId: s })).jobId);
  const page = await c.listJobs({ sessionId: s, limit: 2 });
  assert.equal(page.jobs.length, 2);
  assert.notEqual(page.nextCursor, "");
  const all = [];
  for await (const j of c.iterJobs({ sessionId: s, limit: 2 })) all.push(j.jobId);
  assert.deepEqual(all, ids.reverse());
});

t("history lists the session's answers", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const s = session();
  const job = await c.createJob({ goal: "hot frozen cheese", sessionId: s });
  await c.answer(job.jobId, "frozen");
  assert.deepEqual((await c.history(s)).map((e) => [e.answer, e.jobId]), [["frozen", job.jobId]]);
});

t("a project answer is used by another session, listed, and forgotten", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const project = `ts-${crypto.randomUUID().slice(0, 12)}`;
  const memory = { scope: "project", project };
  const first = await c.createJob({ goal: "hot frozen cheese", sessionId: session(), memory });
  assert.equal(first.status, "pending");
  await c.answer(first.jobId, "frozen");

  const second = await c.createJob({ goal: "hot frozen cheese", sessionId: session(), memory });
  assert.deepEqual([second.status, second.clarificationSource, second.clarificationAnswer], ["success", "history", "frozen"]);
  const ref = second.clarificationMemory;
  assert.deepEqual([ref.scope, ref.project, ref.jobId], ["project", project, first.jobId]);
  assert.equal(second.plan.spec.attributes.temperature, "frozen");

  const entries = await c.listMemory({ project });
  assert.deepEqual(entries.map((e) => [e.answer, e.jobId, e.scope, e.project, e.uses]), [["frozen", first.jobId, "project", project, 1]]);
  assert.ok(entries[0].expiresAt);

  const gone = await c.forgetMemory(entries[0].questionHash, { project });
  assert.deepEqual(gone, { scope: "project", questionHash: entries[0].questionHash });
  assert.deepEqual(await c.listMemory({ scope: "project", project }), []);
  const again = await c.forgetMemory(entries[0].questionHash, { project }).catch((e) => e);
  assert.ok(again instanceof AskonceError);
  assert.deepEqual([again.status, again.code], [404, "not_found"]);

  const third = await c.createJob({ goal: "hot frozen cheese", sessionId: session(), memory });
  assert.deepEqual([third.status, third.clarificationOptions], ["pending", ["hot", "frozen"]]);
});

t("dontRemember keeps the answer out of project memory", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const project = `ts-${crypto.randomUUID().slice(0, 12)}`;
  const memory = { scope: "project", project };
  const s = session();
  const first = await c.createJob({ goal: "hot frozen cheese", sessionId: s, memory });
  assert.equal((await c.answer(first.jobId, "hot", { dontRemember: true })).status, "success");
  assert.deepEqual(await c.listMemory({ project }), []);
  assert.deepEqual((await c.history(s)).map((e) => e.answer), ["hot"], "the session still has the answer");
  assert.equal((await c.createJob({ goal: "hot frozen cheese", sessionId: session(), memory })).status, "pending");
});

t("gate mode: report asks once, then resumes with the answer, then proceeds", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal: "Book the trip", mode: "gate", sessionId: session() });
  const question = { type: "SELECT_ONE", text: "Which city?", options: ["Paris", "Rome"], default: "Paris" };
  assert.equal((await c.report(job.jobId, { question })).action, "ask");
  await c.answer(job.jobId, "Rome");
  const resumed = await c.report(job.jobId, { question });
  assert.deepEqual([resumed.action, resumed.answer], ["resume", "Rome"]);
  assert.equal((await c.report(job.jobId, { question: { type: "CONFIRM", text: "Sure?" } })).action, "proceed");
  const done = await c.report(job.jobId, { plan: { title: "Trip", tasks: [{ id: "t1", title: "Book", instruction: "Book Rome", dependsOn: [] }] } });
  assert.deepEqual([done.action, done.job.status], ["done", "success"]);
});

t("every POST carries a fresh Idempotency-Key, and a given key replays the first response", async () => {
  const f = recordingFetch();
  const c = new Askonce({ baseUrl: server.base, fetch: f });
  const job = await c.createJob({ goal: "Drop the users table", sessionId: session() });
  await c.answer(job.jobId, "tepid").catch(() => {});
  await c.decline(job.jobId);
  const keys = f.requests.filter((r) => r.method === "POST").map((r) => r.headers["idempotency-key"]);
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 3);
  for (const k of keys) assert.match(k, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const key = crypto.randomUUID();
  const s = session();
  const first = await c.createJob({ goal: "hot frozen cheese", sessionId: s }, { idempotencyKey: key });
  const again = await c.createJob({ goal: "hot frozen cheese", sessionId: s }, { idempotencyKey: key });
  assert.equal(again.jobId, first.jobId);
  assert.equal((await c.listJobs({ sessionId: s })).jobs.length, 1);
});

t("streamEvents resumes a broken stream with Last-Event-ID and repeats nothing", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal: "hot frozen cheese", sessionId: session() });
  await c.answer(job.jobId, "hot");
  const want = (await c.events(job.jobId)).map((e) => e.id);
  const f = recordingFetch({ cutStreams: 1 });
  const got = [];
  for await (const ev of new Askonce({ baseUrl: server.base, fetch: f }).streamEvents(job.jobId)) got.push(ev.id);
  assert.deepEqual(got, want);
  const streams = f.streams();
  assert.equal(streams.length, 2);
  assert.equal(streams[0].headers["last-event-id"], undefined);
  assert.equal(streams[1].headers["last-event-id"], String(want[0]));
});

t("the API key is sent as a bearer token", async () => {
  const key = `ts-${crypto.randomUUID()}`;
  const file = join(mkdtempSync(join(tmpdir(), "askonce-keys-")), "keys");
  writeFileSync(file, `acme ${createHash("sha256").update(key).digest("hex")}\n`);
  const srv = await startServer(bin.path, ["--api-keys-file", file]);
  try {
    const err = await new Askonce({ baseUrl: srv.base }).listJobs().catch((e) => e);
    assert.deepEqual([err.status, err.code], [401, "unauthorized"]);
    const job = await new Askonce({ baseUrl: srv.base, apiKey: key }).createJob({ goal: "hot frozen cheese" });
    assert.equal(job.status, "pending");
  } finally {
    await srv.stop();
  }
});

t("no server is an AskonceError with status 0 naming the URL", async () => {
  const c = new Askonce({ baseUrl: "http://127.0.0.1:9" });
  const err = await c.getJob("x").catch((e) => e);
  assert.ok(err instanceof AskonceError);
  assert.equal(err.status, 0);
  assert.match(err.message, /127\.0\.0\.1:9/);
});
