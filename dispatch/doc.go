// Package dispatch delivers the plans of successful jobs to a builder,
// exactly once per job (docs/protocol.md rule 11), through a River queue
// kept in the store's own database: its SQLite file (riversqlite), or its
// PostgreSQL database (riverpgxv5, Config.Pool, [Dispatcher.EnqueuePgx]).
// The same queue carries question notifications (question.asked,
// question.resolved; see notify.go and docs/notifications.md), queued
// through sqlite.Options.OnNotify and [Hook.Notify] (postgres.Options.OnNotify
// and [Hook.NotifyPgx]) in the transaction that asks or resolves.
// The channels that reach people (askonce.Channel: packages slack and
// email, Config.Channels) send on it too: dispatch owns River, and a
// channel only says what to send for a question event and makes one try
// of a send (channel.go). A job's reach policy (askonce.Recipients.Steps)
// runs on it too: one River job per step, scheduled in the transaction
// that asks and cancelled in the one that settles (reach.go).
//
// # How a job gets to its builder
//
// When a job reaches success, the store calls its OnDispatch hook inside
// the transaction that writes the success (see sqlite.Options.OnDispatch).
// [Dispatcher.Enqueue] is that hook: it inserts a River job, unique per
// askonce job, in that same transaction, so the success and its queue
// entry commit or roll back together. The store's dispatches table, keyed
// by job id, refuses a second dispatch of the same job on its own.
//
// River then runs the delivery: it loads the job from the store, hands it
// to the [Builder], and records the outcome on the job with a
// compare-and-set (DeliveryAttempts, DeliveryError, DispatchStatus) and an
// event (delivered or delivery_failed). A failed try is retried after
// Config.Backoff, up to Config.MaxAttempts tries; after the last one the
// job's DispatchStatus is failed.
//
// # Builders
//
//   - [Webhook]: a POST of the job (with its plan) as JSON, signed with
//     Standard Webhooks headers (package webhook); a 2xx response is a
//     delivery.
//   - [Command]: a program (argv, no shell) that gets the job JSON on
//     stdin; exit status 0 is a delivery.
//   - none (a nil Config.Builder): no queue entry is written at all, and
//     builders poll GET /jobs?status=success instead. With
//     askonce.Engine.NoBuilder (askonce serve sets it) the job's
//     DispatchStatus is none and the hook is not even called.
//
// # At least once, deduplicated to exactly once
//
// A job whose DispatchStatus is already delivered is never delivered
// again. A delivery can still be repeated in one case: the process dies
// after the builder accepted the job and before the outcome was recorded.
// River then runs the delivery again (after Config.JobTimeout plus a
// minute, when its rescuer finds the job stuck). This is why the webhook
// carries the job id as webhook-id (and the command gets it as
// ASKONCE_JOB_ID): a receiver that remembers the ids it accepted turns
// at-least-once into exactly-once.
//
// # Wiring
//
// The dispatcher is built after the store (it needs the store's write
// pool) and the store's hook is set before (it is an Open option), so the
// two are joined through a [Hook]:
//
//	var hook dispatch.Hook
//	st, err := sqlite.Options{OnDispatch: hook.Enqueue}.Open(ctx, path)
//	d, err := dispatch.New(ctx, dispatch.Config{DB: st.WriteDB(), Store: st, Builder: b})
//	hook.Set(d)
//	d.Start(ctx)
//	... serve ...
//	d.Stop(shutdownCtx) // in-flight deliveries finish and are recorded
//	st.Close()
package dispatch
