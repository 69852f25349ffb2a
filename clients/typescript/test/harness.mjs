// The real askonce binary for the tests. ASKONCE_BIN names it
// (clients/clients_test.go builds it and sets it); without it the tests
// skip, except under CI=true, where that is a failure.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const plugin = join(root, "examples", "exec-plugin", "plugin.py");

// binary is the path of askonce, or a skip reason (a string starting "skip: ").
export function binary() {
  const path = process.env.ASKONCE_BIN ?? "";
  try {
    accessSync(path, constants.X_OK);
    return { path };
  } catch {
    const why = path ? `ASKONCE_BIN=${path} is not an executable` : "ASKONCE_BIN is not set";
    if (process.env.CI) throw new Error(`the TypeScript client's tests need the built binary: ${why} (go test ./clients sets it)`);
    return { skip: `${why}: build askonce and set ASKONCE_BIN, or run go test ./clients` };
  }
}

/** The environment of an exec interpreter that takes this long per call. */
export function slowPlugin(seconds) {
  return { ASKONCE_EXEC_COMMAND: JSON.stringify(["sh", "-c", `sleep ${seconds}; exec python3 ${plugin}`]) };
}

/** Starts askonce serve on a port it picks (--addr 127.0.0.1:0), read from its log. */
export async function startServer(bin, args = [], env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "askonce-ts-"));
  const proc = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--db", join(dir, "askonce.db"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const exited = new Promise((resolve) => proc.on("exit", resolve));
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`askonce serve did not report its address:\n${log}`)), 30_000);
    const onData = (b) => {
      log += b;
      const m = /127\.0\.0\.1:([1-9][0-9]*)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    exited.then(() => reject(new Error(`askonce serve exited:\n${log}`)));
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`askonce serve did not become healthy:\n${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    base,
    log: () => log,
    async stop() {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fetch that records every request and can cut the first `cutStreams`
 * event streams right after their first event (the body errors as a
 * dropped connection does).
 */
export function recordingFetch({ cutStreams = 0 } = {}) {
  const requests = [];
  const f = async (req) => {
    requests.push({ method: req.method, url: req.url, headers: Object.fromEntries(req.headers) });
    const res = await fetch(req);
    if (req.headers.get("accept") !== "text/event-stream" || cutStreams <= 0) return res;
    cutStreams--;
    const reader = res.body.getReader();
    let seen = "";
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const text = new TextDecoder().decode(value);
        const end = (seen + text).search(/data:[^\n]*\n\n/);
        if (end < 0) {
          seen += text;
          return controller.enqueue(value);
        }
        const upTo = (seen + text).indexOf("\n\n", end) + 2 - seen.length;
        controller.enqueue(new TextEncoder().encode(text.slice(0, upTo)));
        reader.cancel();
        controller.error(new TypeError("terminated"));
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  f.requests = requests;
  f.streams = () => requests.filter((r) => r.headers.accept === "text/event-stream");
  return f;
}

export const session = () => `ts-${crypto.randomUUID()}`;
