// The official A2A JavaScript SDK (@a2a-js/sdk 1.x), speaking A2A 1.0, as
// a third-party client of askonce serve's /a2a (JSON-RPC) and /a2a/rest
// (HTTP+JSON). It runs the scenario of docs/integrations.md once over each
// binding and prints one JSON line reporting what it saw, by binding;
// cmd/askonce/a2a_npm_test.go asserts on it. Environment: ASKONCE_URL
// (the server's base URL), KEY_A and KEY_B (API keys of two tenants).
import { randomUUID } from "node:crypto";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";

const base = process.env.ASKONCE_URL;
if (!base) throw new Error("ASKONCE_URL is not set");

// client connects through the Agent Card over binding, sending key on
// every call.
async function client(key, binding) {
  const fetchImpl = (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (key) headers.set("Authorization", `Bearer ${key}`);
    return fetch(url, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(base);
}

const text = (s, extra = {}) => ({
  message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text", value: s } }], ...extra },
});
const data = (value, extra = {}) => ({
  message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "data", value } }], ...extra },
});
const state = (s) => TaskState[s];
const dataOf = (parts = []) => parts.find((p) => p.content?.$case === "data")?.content.value;
const temperature = (task) => dataOf(task.artifacts?.find((a) => a.artifactId === "plan")?.parts)?.spec?.attributes?.temperature;
const failure = async (p) => {
  try {
    await p;
    return null;
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
};
// events collects a stream's task and status states.
async function states(stream) {
  const seen = [];
  let id;
  for await (const ev of stream) {
    const p = ev.payload ?? { $case: ev.kind, value: ev };
    if (p.$case === "task") {
      seen.push(state(p.value.status.state));
      id = p.value.id;
    } else if (p.$case === "statusUpdate") {
      seen.push(state(p.value.status.state));
    }
  }
  return { id, states: seen };
}

async function scenario(binding) {
  const a = await client(process.env.KEY_A, binding);
  const b = await client(process.env.KEY_B, binding);
  const report = {};

  // 1. A goal with a question: input-required, the typed question as data.
  const asked = await a.sendMessage(text("hot frozen cheese"));
  const q = dataOf(asked.status.message?.parts);
  report.asked = { state: state(asked.status.state), type: q?.type, options: q?.options, default: q?.default, answerUrl: q?.answerUrl ?? "" };

  // 2. A typed data part the question does not take is refused, naming
  // what it takes, and the task still asks; the answer, on the same task
  // (a data part {"answer": "hot"}): completed with the plan.
  const on = { taskId: asked.id, contextId: asked.contextId };
  report.typed = {
    refused: await failure(a.sendMessage(data({ answer: true }, on))),
    object: await failure(a.sendMessage(data({ answer: { n: [1, 2] } }, on))),
    stillAsking: state((await a.getTask({ id: asked.id })).status.state),
  };
  const done = await a.sendMessage(data({ answer: "hot" }, on));
  report.answered = { sameTask: done.id === asked.id, state: state(done.status.state), temperature: temperature(done) };

  // 3. A second task in the same context, streamed: answered from history.
  const second = await states(a.sendMessageStream(text("hot frozen cheese", { contextId: asked.contextId })));
  const again = await a.getTask({ id: second.id });
  report.history = { newTask: second.id !== asked.id, sameContext: again.contextId === asked.contextId, states: second.states, state: state(again.status.state), temperature: temperature(again) };

  // 4. Cancel a task that waits for its answer; a second cancel is refused.
  const toCancel = await a.sendMessage(text("hot frozen cheese"));
  const cancelled = await a.cancelTask({ id: toCancel.id });
  report.cancel = { before: state(toCancel.status.state), state: state(cancelled.status.state), again: await failure(a.cancelTask({ id: toCancel.id })) };

  // 5. SubscribeToTask (resubscribeTask) of a task that asks: the task,
  // then its status.
  const waiting = await a.sendMessage(text("hot frozen cheese", { contextId: `sub-${binding}` }));
  report.subscribe = (await states(a.resubscribeTask({ id: waiting.id }))).states;

  // 6. ListTasks of the context: its two tasks, a page at a time; by state.
  const page1 = await a.listTasks({ contextId: asked.contextId, pageSize: 1 });
  const page2 = await a.listTasks({ contextId: asked.contextId, pageSize: 1, pageToken: page1.nextPageToken });
  const completed = await a.listTasks({ contextId: asked.contextId, status: TaskState.TASK_STATE_COMPLETED });
  const asking = await a.listTasks({ contextId: asked.contextId, status: TaskState.TASK_STATE_INPUT_REQUIRED });
  report.list = {
    pages: [page1, page2].map((p) => p.tasks.map((t) => t.id)),
    ids: [second.id, asked.id],
    total: page1.totalSize,
    last: page2.nextPageToken ?? "",
    completed: completed.tasks.length,
    asking: asking.tasks.length,
    otherTenant: (await b.listTasks({ contextId: asked.contextId })).tasks.length,
  };

  // 7. Tenancy: the other key's client finds none of tenant A's tasks; no
  // key is refused.
  const anonymous = await client("", binding);
  report.tenancy = {
    get: await failure(b.getTask({ id: asked.id })),
    answer: await failure(b.sendMessage(text("frozen", { taskId: waiting.id }))),
    cancel: await failure(b.cancelTask({ id: waiting.id })),
    noKey: await failure(anonymous.getTask({ id: asked.id })),
    ownerStill: state((await a.getTask({ id: waiting.id })).status.state),
  };

  // 8. Push notifications, when the test runs a receiver (PUSH_URL): a
  // config on a task that asks, then the answer; the receiver gets the
  // completed task. The other key's client finds no config.
  if (process.env.PUSH_URL) {
    const pushed = await a.sendMessage(text("hot frozen cheese", { contextId: `push-${binding}` }));
    const cfg = await a.createTaskPushNotificationConfig({
      tenant: "", taskId: pushed.id, id: `js-${binding}`, url: `${process.env.PUSH_URL}/${binding}`, token: "js-token", authentication: undefined,
    });
    const listed = await a.listTaskPushNotificationConfig({ tenant: "", taskId: pushed.id, pageSize: 0, pageToken: "" });
    await a.sendMessage(text("hot", { taskId: pushed.id, contextId: pushed.contextId }));
    report.push = {
      task: pushed.id,
      id: cfg.id,
      listed: listed.configs.map((c) => c.id),
      otherTenant: await failure(b.getTaskPushNotificationConfig({ tenant: "", taskId: pushed.id, id: cfg.id })),
    };
  }
  return report;
}

console.log(JSON.stringify({ JSONRPC: await scenario("JSONRPC"), "HTTP+JSON": await scenario("HTTP+JSON") }));
