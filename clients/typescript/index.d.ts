// Types of @askonce/client. The API's own types are in openapi.d.ts,
// generated from the server's GET /openapi.json (npm run generate).
import type { Client } from "openapi-fetch";
import type { components, paths } from "./openapi.js";

export type { components, paths };
type Schemas = components["schemas"];
export type JobView = Schemas["JobView"];
export type JobDetail = Schemas["JobDetail"];
export type JobList = Schemas["JobList"];
export type CreateJobRequest = Schemas["CreateJobRequest"];
export type ReportRequest = Schemas["ReportRequest"];
export type ReportResponse = Schemas["ReportResponse"];
export type Question = Schemas["Question"];
export type Plan = Schemas["Plan"];
export type JobEvent = Schemas["Event"];
export type HistoryEntry = Schemas["HistoryEntry"];
export type Memory = Schemas["Memory"];
export type MemoryRef = Schemas["MemoryRef"];
export type Forgotten = Schemas["Forgotten"];
export type MemoryScope = NonNullable<Memory["scope"]>;
export type ErrorCode = Schemas["ErrorResponse"]["code"];
export type JobStatus = JobView["status"];
export type ListQuery = NonNullable<paths["/jobs"]["get"]["parameters"]["query"]>;

/** A non-2xx response of the API (code from its body), or no response (status 0, code ""). */
export declare class AskonceError extends Error {
  readonly status: number;
  readonly code: ErrorCode | "";
  /** The answers an invalid answer could have been. */
  readonly allowed: string[];
  /** Every bad field of an invalid answer to a question with fields. */
  readonly fields: Schemas["FieldError"][];
  /** The job as it is now, on a conflict. */
  readonly job?: JobView;
}

export interface AskonceOptions {
  /** Where askonce serve listens; default http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Sent as "Authorization: Bearer <key>" (servers with --api-keys-file). */
  apiKey?: string;
  /** A fetch to use instead of the global one. */
  fetch?: (request: Request) => Promise<Response>;
  /** Give every POST a fresh Idempotency-Key (crypto.randomUUID()); default true. */
  idempotency?: boolean;
}

export interface PostOptions {
  /** Prefer: respond-async: answer at once with the job still planning (follow it with waitJob). */
  respondAsync?: boolean;
  /** This Idempotency-Key instead of a fresh one: a retry with it gets the first response. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface AnswerOptions extends PostOptions {
  /** Keep the answer out of the project and tenant memory (the session still has it). */
  dontRemember?: boolean;
}

/** Which remembered answers: scope defaults to project when project is given, else tenant. */
export interface MemoryQuery {
  scope?: Exclude<MemoryScope, "session">;
  project?: string;
}

/** One remembered answer's scope: it defaults to project when project is given, session when session is, else tenant. */
export interface ForgetQuery {
  scope?: MemoryScope;
  project?: string;
  session?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up (a TimeoutError) after this many milliseconds. */
  timeoutMs?: number;
  /** Every event of the job, in order. */
  onEvent?: (event: JobEvent) => void;
}

export declare class Askonce {
  constructor(options?: AskonceOptions);
  readonly baseUrl: string;
  /** The openapi-fetch client: every route of the API, typed. */
  readonly api: Client<paths>;
  /** POST /jobs: the plan, the one question (needsClarification) or the failure. */
  createJob(body: CreateJobRequest, opts?: PostOptions): Promise<JobView>;
  getJob(id: string, opts?: CallOptions): Promise<JobDetail>;
  /** One page of jobs, newest first; nextCursor is "" on the last page. */
  listJobs(query?: ListQuery, opts?: CallOptions): Promise<JobList>;
  /** Every matching job, following the cursors page by page. */
  iterJobs(query?: ListQuery, opts?: CallOptions): AsyncGenerator<JobView, void>;
  /** Answers the question (a question with fields: an object of field values); never returns a second question. */
  answer(id: string, answer: Schemas["AnswerRequest"]["answer"], opts?: AnswerOptions): Promise<JobView>;
  /** Declines the question: its default applies, or the fallback directive. */
  decline(id: string, opts?: PostOptions): Promise<JobView>;
  cancel(id: string, opts?: Omit<PostOptions, "respondAsync">): Promise<JobView>;
  /** Gate mode: report the agent's outcome; the action says what to do. */
  report(id: string, body: ReportRequest, opts?: Omit<PostOptions, "respondAsync">): Promise<ReportResponse>;
  events(id: string, after?: number, opts?: CallOptions): Promise<JobEvent[]>;
  history(sessionId: string, opts?: CallOptions): Promise<HistoryEntry[]>;
  /** GET /memory: the answers remembered in a project or the tenant, newest first. */
  listMemory(query?: MemoryQuery, opts?: CallOptions): Promise<HistoryEntry[]>;
  /** DELETE /memory/{hash}: forget one remembered answer (its questionHash), so the next job asks again; none is a not_found AskonceError. */
  forgetMemory(questionHash: string, query?: ForgetQuery, opts?: CallOptions): Promise<Forgotten>;
  /** Live events until the server ends the stream; a broken stream resumes with Last-Event-ID. */
  streamEvents(id: string, opts?: { lastEventId?: number; signal?: AbortSignal }): AsyncGenerator<JobEvent, void>;
  /** Waits over the event stream until the job leaves planning (pending with its question, or settled). */
  waitJob(id: string, opts?: WaitOptions): Promise<JobDetail>;
}

export declare function createAskonce(options?: AskonceOptions): Askonce;
