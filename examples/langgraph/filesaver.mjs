// FileSaver is LangGraph's MemorySaver kept in a JSON file, so that a
// graph interrupted in one process resumes in the next: every checkpoint
// and pending write is written to the file as it is saved, and read back
// when a FileSaver opens the file. Enough for an example; a service would
// use a database checkpointer (@langchain/langgraph-checkpoint-postgres).
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { MemorySaver } from "@langchain/langgraph";

// Checkpoints hold bytes (Uint8Array); JSON holds them as base64.
const replacer = (_k, v) => (v instanceof Uint8Array ? { $bytes: Buffer.from(v).toString("base64") } : v);
const reviver = (_k, v) => (v && typeof v === "object" && typeof v.$bytes === "string" ? new Uint8Array(Buffer.from(v.$bytes, "base64")) : v);

// nullProto gives parsed objects MemorySaver's prototype-free shape.
function nullProto(v) {
  if (!v || typeof v !== "object" || Array.isArray(v) || v instanceof Uint8Array) return v;
  const out = Object.create(null);
  for (const [k, x] of Object.entries(v)) out[k] = nullProto(x);
  return out;
}

export class FileSaver extends MemorySaver {
  constructor(path) {
    super();
    this.path = path;
    if (existsSync(path)) {
      const saved = JSON.parse(readFileSync(path, "utf8"), reviver);
      this.storage = nullProto(saved.storage);
      this.writes = nullProto(saved.writes);
    }
  }

  // save writes the whole store, through a temporary file, so that a
  // process killed mid-write leaves the previous one.
  save() {
    writeFileSync(this.path + ".tmp", JSON.stringify({ storage: this.storage, writes: this.writes }, replacer));
    renameSync(this.path + ".tmp", this.path);
  }

  async put(...args) {
    const r = await super.put(...args);
    this.save();
    return r;
  }

  async putWrites(...args) {
    await super.putWrites(...args);
    this.save();
  }

  async deleteThread(...args) {
    await super.deleteThread(...args);
    this.save();
  }
}
