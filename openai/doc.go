// Package openai is askonce's interpreter for any OpenAI-compatible
// chat-completions server: OpenAI, Ollama, vLLM, llama.cpp's server, LM
// Studio. It speaks the chat-completions API over net/http itself (one
// POST <BaseURL>/chat/completions per try, the fields askonce sends and
// reads), reading no OPENAI_* variables, so that the Config is the whole
// truth about where requests go. (It used the official SDK,
// github.com/openai/openai-go/v3, until that was a quarter of the release
// binary for this one call; docs/deploy.md.)
//
// # One attempt
//
// Each Interpret call is one attempt of the engine's planning loop and
// sends one chat completion (plus the retries below): DefaultSystemPrompt,
// which teaches the protocol (a plan, or one typed question with options,
// defaulting only where someone chose the default: "no" for a destructive
// step, a spec field's schema default; the "Clarification Answer:" section is
// authoritative; a directive is obeyed; no question after an answer), and
// a user message built by UserMessage from the request (the prompt, the
// profile, the candidate files, the spec schema, the directive verbatim,
// and the previous attempt's errors as "Your previous output was
// invalid: ..."). The model's message content is returned as Raw,
// unchecked: the engine parses and validates it, records it, and feeds its
// errors back on the next attempt.
//
// # Structured output
//
// Config.ResponseFormat chooses response_format: json_schema (the schema
// of OutcomeSchema; plan-only when a directive or an answer forbids a
// question), json_object (JSON mode), or none. In auto, the default, the
// interpreter starts with json_schema; when the server rejects it with an
// error that names response_format or json_schema it repeats the call at
// once with json_object (and from there with none), and remembers the
// downgrade for later calls.
//
// # Retries, timeouts, limits
//
// 429, 408, 409, 5xx, connection errors and Config.RequestTimeout
// expiries are retried up to Config.MaxRetries times (default 3), after
// Retry-After (seconds or an HTTP date) or retry-after-ms when the server
// sends one, else exponential backoff with jitter. A wait that would end
// past the context's deadline (the engine's InterpretTimeout) or exceed
// Config.MaxRetryDelay is not started: the call fails at once. Other
// failures, and the last retry's, are errors naming the HTTP status and
// the server's message (a *StatusError in the chain), with the response
// body as Raw. Response bodies over Config.MaxResponseBytes fail the call.
//
// # Usage and cost
//
// The response's usage (prompt_tokens, completion_tokens) is the
// attempt's usage; its cost comes from Config.Prices, US dollars per one
// million tokens, looked up by the configured model and then by the model
// the server reports.
//
// ConfigFromEnv reads a Config from ASKONCE_OPENAI_* variables; see
// docs/interpreters.md for OpenAI, Ollama and vLLM examples.
package openai
