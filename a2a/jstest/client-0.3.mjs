// The official A2A JavaScript SDK 0.3 (@a2a-js/sdk 0.3.x, installed as
// a2a-sdk-03), speaking A2A 0.3, as a third-party client of
// askonce serve's /a2a. It runs the scenario of docs/integrations.md and
// prints one JSON line reporting what it saw; cmd/askonce/a2a_npm_test.go
// asserts on it. Environment: ASKONCE_URL (the server's base URL),
// KEY_A and KEY_B (API keys of two tenants).
import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "a2a-sdk-03/client";

const base = process.env.ASKONCE_URL;
if (!base) throw new Error("ASKONCE_URL is not set");

// client connects through the Agent Card, sending key on every call.
async function client(key) {
  const fetchImpl = (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (key) headers.set("Authorization", `Bearer ${key}`);
    return fetch(url, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(base);
}

const text = (s, extra = {}) => ({
  message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: s }], ...extra },
});
const dataOf = (parts = []) => parts.find((p) => p.kind === "data")?.data;
const temperature = (task) => dataOf(task.artifacts?.find((a) => a.artifactId === "plan")?.parts)?.spec?.attributes?.temperature;
const failure = async (p) => {
  try {
    await p;
    return null;
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
};

const a = await client(process.env.KEY_A);
const b = await client(process.env.KEY_B);
const report = {};

// 1. A goal with a question: input-required, the typed question as data.
const asked = await a.sendMessage(text("hot frozen cheese"));
const q = dataOf(asked.status.message?.parts);
report.asked = { kind: asked.kind, state: asked.status.state, type: q?.type, options: q?.options, answerUrl: q?.answerUrl ?? "" };

// 2. The answer, on the same task: completed with the plan.
const done = await a.sendMessage(text("hot", { taskId: asked.id, contextId: asked.contextId }));
report.answered = { sameTask: done.id === asked.id, state: done.status.state, temperature: temperature(done) };

// 3. A second task in the same context, streamed: answered from history.
const states = [];
let second;
for await (const ev of a.sendMessageStream(text("hot frozen cheese", { contextId: asked.contextId }))) {
  if (ev.kind === "task") {
    states.push(ev.status.state);
    second = ev.id;
  } else if (ev.kind === "status-update") {
    states.push(ev.status.state);
  }
}
const again = await a.getTask({ id: second });
report.history = { newTask: second !== asked.id, sameContext: again.contextId === asked.contextId, states, state: again.status.state, temperature: temperature(again) };

// 4. Cancel a task that waits for its answer; a second cancel is refused.
const toCancel = await a.sendMessage(text("hot frozen cheese"));
const cancelled = await a.cancelTask({ id: toCancel.id });
report.cancel = {
  before: toCancel.status.state,
  state: cancelled.status.state,
  again: await failure(a.cancelTask({ id: toCancel.id })),
};

// 5. Tenancy: the other key's client finds none of tenant A's tasks; no
// key is refused.
const anonymous = await client("");
report.tenancy = {
  get: await failure(b.getTask({ id: asked.id })),
  answer: await failure(b.sendMessage(text("frozen", { taskId: toCancel.id }))),
  cancel: await failure(b.cancelTask({ id: asked.id })),
  noKey: await failure(anonymous.getTask({ id: asked.id })),
  ownerStill: (await a.getTask({ id: asked.id })).status.state,
};

console.log(JSON.stringify(report));
