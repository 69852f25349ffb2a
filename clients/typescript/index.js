// @askonce/client: the askonce HTTP API from JavaScript and TypeScript.
// Calls go through openapi-fetch, typed by openapi.d.ts (generated from the
// server's GET /openapi.json); waitJob and streamEvents follow a job's
// Server-Sent Events. Types: index.d.ts.
import createClient from "openapi-fetch";

// Events after which a job is still planning: waiting need not read the job.
const planningEvents = new Set(["created", "attempt"]);

/** A non-2xx response of the API, or no response at all (status 0). */
export class AskonceError extends Error {
  constructor(status, body, message) {
    const code = body && typeof body === "object" && typeof body.code === "string" ? body.code : "";
    super(message ?? (code ? body.error || `HTTP ${status}` : `HTTP ${status}`));
    this.name = "AskonceError";
    this.status = status;
    this.code = code;
    this.allowed = (code && body.allowed) || [];
    this.fields = (code && body.fields) || [];
    this.job = (code && body.job) || undefined;
  }
}

/** A client of one askonce server; see index.d.ts for the options. */
export class Askonce {
  constructor({ baseUrl = "http://127.0.0.1:8080", apiKey, fetch: fetchImpl, idempotency = true } = {}) {
    const u = new URL(baseUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      throw new TypeError(`server URL ${baseUrl}: want http(s)://host[:port]`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = fetchImpl ?? globalThis.fetch;
    this.headers = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
    /** The openapi-fetch client: every route of the API, typed. */
    this.api = createClient({ baseUrl: this.baseUrl, fetch: (req) => this.fetch(req), headers: this.headers });
    if (idempotency) {
      // A retry with the same key is answered with the first response, so
      // every POST carries one unless the caller gave its own.
      this.api.use({
        onRequest({ request }) {
          if (request.method === "POST" && !request.headers.has("Idempotency-Key")) {
            request.headers.set("Idempotency-Key", crypto.randomUUID());
          }
          return request;
        },
      });
    }
  }

  createJob(body, opts = {}) {
    return this.#call(this.api.POST("/jobs", { body, params: { header: postHeaders(opts) }, signal: opts.signal }));
  }

  getJob(id, opts = {}) {
    return this.#call(this.api.GET("/jobs/{id}", { params: { path: { id } }, signal: opts.signal }));
  }

  listJobs(query = {}, opts = {}) {
    return this.#call(this.api.GET("/jobs", { params: { query: clean(query) }, signal: opts.signal }));
  }

  async *iterJobs(query = {}, opts = {}) {
    let cursor = query.cursor;
    for (;;) {
      const page = await this.listJobs({ ...query, cursor }, opts);
      yield* page.jobs ?? [];
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  answer(id, answer, opts = {}) {
    const body = opts.dontRemember ? { answer, dontRemember: true } : { answer };
    return this.#call(this.api.POST("/jobs/{id}/clarification", {
      params: { path: { id }, header: postHeaders(opts) }, body, signal: opts.signal,
    }));
  }

  decline(id, opts = {}) {
    return this.#call(this.api.POST("/jobs/{id}/decline", {
      params: { path: { id }, header: postHeaders(opts) }, body: {}, signal: opts.signal,
    }));
  }

  cancel(id, opts = {}) {
    return this.#call(this.api.POST("/jobs/{id}/cancel", {
      params: { path: { id }, header: postHeaders({ ...opts, respondAsync: false }) }, body: {}, signal: opts.signal,
    }));
  }

  report(id, body, opts = {}) {
    return this.#call(this.api.POST("/jobs/{id}/report", {
      params: { path: { id }, header: postHeaders({ ...opts, respondAsync: false }) }, body, signal: opts.signal,
    }));
  }

  async events(id, after = 0, opts = {}) {
    const query = after ? { after } : {};
    return (await this.#call(this.api.GET("/jobs/{id}/events", { params: { path: { id }, query }, signal: opts.signal }))).events ?? [];
  }

  async history(sessionId, opts = {}) {
    return (await this.#call(this.api.GET("/sessions/{id}/history", { params: { path: { id: sessionId } }, signal: opts.signal }))).entries ?? [];
  }

  async listMemory(query = {}, opts = {}) {
    const scope = query.scope ?? (query.project ? "project" : "tenant");
    const params = { query: clean({ ...query, scope }) };
    return (await this.#call(this.api.GET("/memory", { params, signal: opts.signal }))).entries ?? [];
  }

  forgetMemory(questionHash, query = {}, opts = {}) {
    const scope = query.scope ?? (query.project ? "project" : query.session ? "session" : "tenant");
    const params = { path: { hash: questionHash }, query: clean({ ...query, scope }) };
    return this.#call(this.api.DELETE("/memory/{hash}", { params, signal: opts.signal }));
  }

  async *streamEvents(id, { lastEventId = 0, signal } = {}) {
    const state = { last: lastEventId, retry: 1000 };
    for (;;) {
      try {
        yield* this.#streamOnce(id, state, signal);
        return;
      } catch (err) {
        if (!(err instanceof StreamBroken)) throw err;
        await pause(state.retry, signal);
      }
    }
  }

  async waitJob(id, { signal, timeoutMs, onEvent } = {}) {
    if (timeoutMs !== undefined) {
      const t = AbortSignal.timeout(timeoutMs);
      signal = signal ? AbortSignal.any([signal, t]) : t;
    }
    const state = { last: 0, retry: 1000 };
    for (;;) {
      let job = await this.getJob(id, { signal });
      if (job.status !== "planning") return job;
      try {
        for await (const ev of this.#streamOnce(id, state, signal)) {
          onEvent?.(ev);
          if (planningEvents.has(ev.type)) continue;
          job = await this.getJob(id, { signal });
          if (job.status !== "planning") return job;
        }
        // The server ended the stream (its stream timeout) with the job
        // still planning: read it and follow on.
      } catch (err) {
        if (!(err instanceof StreamBroken)) throw err;
        await pause(state.retry, signal);
      }
    }
  }

  async *#streamOnce(id, state, signal) {
    const headers = { ...this.headers, Accept: "text/event-stream" };
    if (state.last) headers["Last-Event-ID"] = String(state.last);
    const url = `${this.baseUrl}/jobs/${encodeURIComponent(id)}/events`;
    let res;
    try {
      res = await this.fetch(new Request(url, { headers, signal }));
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new StreamBroken(err);
    }
    if (!res.ok) throw new AskonceError(res.status, await res.json().catch(() => null));
    const decoder = new TextDecoder();
    let buf = "";
    let data = [];
    const reader = res.body.getReader();
    try {
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          throw new StreamBroken(err);
        }
        if (chunk.done) return;
        buf += decoder.decode(chunk.value, { stream: true });
        const lines = buf.split("\n");
        buf = lines.pop();
        for (const raw of lines) {
          const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
          if (line === "") {
            if (data.length) {
              const ev = JSON.parse(data.join("\n"));
              data = [];
              state.last = Math.max(state.last, ev.id);
              yield ev;
            }
            continue;
          }
          const i = line.indexOf(":");
          const name = i < 0 ? line : line.slice(0, i);
          let value = i < 0 ? "" : line.slice(i + 1);
          if (value.startsWith(" ")) value = value.slice(1);
          if (name === "data") data.push(value);
          else if (name === "retry" && /^\d+$/.test(value)) state.retry = Number(value);
          // id: and event: repeat what data carries; ":" is a keep-alive.
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  async #call(pending) {
    let out;
    try {
      out = await pending;
    } catch (err) {
      if (err?.name === "AbortError" || err?.name === "TimeoutError") throw err;
      throw new AskonceError(0, null, `${err.message} (is askonce serve running at ${this.baseUrl}?)`);
    }
    const { data, error, response } = out;
    if (!response.ok) throw new AskonceError(response.status, error);
    return data;
  }
}

/** createAskonce(options) is new Askonce(options). */
export function createAskonce(options) {
  return new Askonce(options);
}

class StreamBroken extends Error {
  constructor(cause) {
    super(`event stream broke: ${cause?.message ?? cause}`, { cause });
  }
}

function postHeaders({ respondAsync, idempotencyKey } = {}) {
  const h = {};
  if (respondAsync) h.Prefer = "respond-async";
  if (idempotencyKey) h["Idempotency-Key"] = idempotencyKey;
  return h;
}

function clean(query) {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""));
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener("abort", stop); resolve(); }, ms);
    const stop = () => { clearTimeout(t); reject(signal.reason); };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
