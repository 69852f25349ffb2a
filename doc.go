// Package askonce turns a natural-language goal into a validated plan for an
// LLM agent, asking a human at most one typed clarifying question on the way.
//
// The root package has two layers, told apart by their file names:
//
//   - The domain, with no I/O: the types (Job, Question, Plan, Task,
//     Attempt, Event, Usage, Recipients, Memory) and their status enums
//     (job.go, question.go, plan.go, memory.go, ...), the error codes
//     (error.go), the protocol as the pure transition function Step
//     (protocol.go), the semantic resolver (resolver.go), and the
//     interfaces the subpackages implement: Store (store.go),
//     IdempotencyStore (idempotency.go: the HTTP API's Idempotency-Key
//     records), Interpreter (interpreter.go) and Channel (channel.go).
//   - The Engine (engine.go and engine_*.go), which drives Step against a
//     Store and an Interpreter: creating a job (engine_create.go), a
//     person's act on a job, the one entry point of every channel
//     (engine_act.go), the one planning loop with its commit strategy
//     (engine_planning.go), planning in the background
//     (engine_background.go), gate mode (engine_gate.go), answer links
//     (engine_answerlink.go), planning leases (engine_lease.go), the
//     expiry and recovery sweep (engine_sweep.go), the one commit sequence
//     of a change (engine_commit.go), the pending jobs it remembers
//     (engine_pending.go), and what channels sent (engine_message.go).
//
// Implementations live in subpackages named after their dependency: the
// stores sqlite and postgres (which share their SQL in internal/sqlstore
// and both pass one conformance suite, storetest), the interpreters
// rules, openai and exec, the River queue dispatch, and the channels
// that reach people, slack and email. The
// HTTP API (server), the pages (web), mcp and a2a talk to the Engine;
// cmd/askonce wires them together.
//
// docs/protocol.md describes the behaviour; every rule there has a test
// named after it in this package or in storetest.
package askonce
