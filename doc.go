// Package askonce turns a natural-language goal into a validated plan for an
// LLM agent, asking a human at most one typed clarifying question on the way.
//
// This root package holds the domain and nothing else: the types (Job,
// Question, Plan, Task, Attempt, Event, Usage), their status enums, the error
// codes, the Interpreter and Store interfaces (and IdempotencyStore, the HTTP
// API's Idempotency-Key records), and the protocol itself as a pure
// transition function (Step) with no I/O. The Engine drives Step against
// a Store and an Interpreter; implementations of those live in subpackages
// named after their dependency: the stores sqlite and postgres (which
// share their SQL in internal/sqlstore and both pass storetest), the
// interpreters rules, openai and exec.
//
// docs/protocol.md describes the behaviour; every rule there has a test
// named after it in this package or in storetest.
package askonce
