package metrics

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/askonce/askonce"
)

// Metric names written by the Observer.
const (
	// NameUp is a gauge, 1 while the process serves.
	NameUp = "askonce_up"
	// NameJobs counts jobs entering each status: planning (creation, or
	// re-planning after an answer), pending, success, validation_error,
	// failed, cancelled, expired. Label: status.
	NameJobs = "askonce_jobs_total"
	// NameQuestions counts questions that reached a human (asked events).
	// Label: type (CONFIRM, SELECT_ONE, TARGET_FILE, FREE_TEXT).
	NameQuestions = "askonce_questions_asked_total"
	// NameAutoResolved counts questions answered before reaching a human
	// (auto_resolved events). Label: source (history, resolver).
	NameAutoResolved = "askonce_auto_resolved_total"
	// NameGated counts questions a gating policy declined to ask.
	NameGated = "askonce_gated_total"
	// NameHardCap counts hard-cap outcomes (PROTOCOL.md rule 3). Label:
	// outcome: fallback (the fallback run was granted) or fail (the job
	// failed with askonce.HardCapMessage).
	NameHardCap = "askonce_hard_cap_total"
	// NameAttempts counts interpreter calls and gate reports. Labels:
	// reason (initial, retry_parse_error, ..., report) and outcome (plan,
	// question, invalid, error).
	NameAttempts = "askonce_interpreter_attempts_total"
	// NameAttemptSeconds is the latency of interpreter calls (gate reports,
	// which take no time on the server, are not observed). Label: outcome.
	NameAttemptSeconds = "askonce_interpreter_attempt_duration_seconds"
	// NameDeliveries counts builder deliveries. Labels: builder, outcome
	// (ok, error).
	NameDeliveries = "askonce_dispatch_deliveries_total"
	// NameDeliverySeconds is the latency of builder deliveries. Labels:
	// builder, outcome.
	NameDeliverySeconds = "askonce_dispatch_delivery_duration_seconds"
	// NameHTTPSeconds is the latency of HTTP requests; its _count is the
	// request count. Labels: route (the ServeMux pattern, such as
	// "POST /jobs/{id}/clarification", or "unmatched") and status.
	NameHTTPSeconds = "askonce_http_request_duration_seconds"
	// NameElicitations counts questions put to a human through an MCP
	// client's elicitation. Labels: mode (form, url) and outcome (accept,
	// decline, cancel, invalid: accepted with an answer the question does
	// not take, error: the client failed the elicitation).
	NameElicitations = "askonce_mcp_elicitations_total"
)

// SlowBuckets are histogram buckets, in seconds, for interpreter calls and
// deliveries, which may take minutes.
var SlowBuckets = []float64{0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Observer records askonce's metrics in a Registry. It implements
// askonce.Observer (set it as Engine.Observer); the dispatcher reports
// deliveries with ObserveDelivery and the HTTP server requests with
// ObserveHTTP and creations with JobCreated. Every method is cheap and never
// blocks on I/O. A nil *Observer records nothing.
type Observer struct {
	up              *Gauge
	jobs            *Counter
	questions       *Counter
	autoResolved    *Counter
	gated           *Counter
	hardCap         *Counter
	attempts        *Counter
	attemptSeconds  *Histogram
	deliveries      *Counter
	deliverySeconds *Histogram
	httpSeconds     *Histogram
	elicitations    *Counter
}

var _ askonce.Observer = (*Observer)(nil)

// NewObserver returns the registry's Observer, registering its metrics on
// first use. Every call on one registry returns the same Observer, so the
// engine, the dispatcher and the HTTP server share their counters.
// A nil registry gives a nil Observer, which records nothing.
func NewObserver(r *Registry) *Observer {
	if r == nil {
		return nil
	}
	r.obsOnce.Do(func() {
		o := &Observer{
			up:              r.Gauge(NameUp, "1 while askonce is serving."),
			jobs:            r.Counter(NameJobs, "Jobs entering each status.", "status"),
			questions:       r.Counter(NameQuestions, "Clarifying questions that reached a human.", "type"),
			autoResolved:    r.Counter(NameAutoResolved, "Questions answered without a human, by source.", "source"),
			gated:           r.Counter(NameGated, "Questions a gating policy declined to ask."),
			hardCap:         r.Counter(NameHardCap, "Interpreters that asked again after the one clarification, by outcome.", "outcome"),
			attempts:        r.Counter(NameAttempts, "Interpreter calls and gate reports, by reason and outcome.", "reason", "outcome"),
			attemptSeconds:  r.Histogram(NameAttemptSeconds, "Latency of interpreter calls.", SlowBuckets, "outcome"),
			deliveries:      r.Counter(NameDeliveries, "Builder deliveries, by builder and outcome.", "builder", "outcome"),
			deliverySeconds: r.Histogram(NameDeliverySeconds, "Latency of builder deliveries.", SlowBuckets, "builder", "outcome"),
			httpSeconds:     r.Histogram(NameHTTPSeconds, "Latency of HTTP requests, by route pattern and status.", DefBuckets, "route", "status"),
			elicitations:    r.Counter(NameElicitations, "MCP elicitations, by mode and outcome.", "mode", "outcome"),
		}
		o.up.Set(1)
		r.obs = o
	})
	return r.obs
}

// ObserveDelivery records one builder delivery try: which builder, whether
// it was accepted, and how long it took. It is the dispatcher's hook.
func (r *Registry) ObserveDelivery(builder string, ok bool, d time.Duration) {
	NewObserver(r).ObserveDelivery(builder, ok, d)
}

// statusEntered maps the events that move a job into a status. Events
// that leave the status as it was (auto_resolved, gated, resumed,
// fallback_applied after an answer, dispatched) are absent.
var statusEntered = map[askonce.EventType]askonce.Status{
	askonce.EventAsked:            askonce.StatusPending,
	askonce.EventAnswered:         askonce.StatusPlanning, // only a pending job takes an answer
	askonce.EventPlanned:          askonce.StatusSuccess,
	askonce.EventValidationFailed: askonce.StatusValidationError,
	askonce.EventFailed:           askonce.StatusFailed,
	askonce.EventCancelled:        askonce.StatusCancelled,
	askonce.EventExpired:          askonce.StatusExpired,
}

// Transition implements askonce.Observer: it counts the statuses entered
// and the clarification outcomes in the transition's events.
func (o *Observer) Transition(job *askonce.Job, fx *askonce.Effects) {
	if o == nil || fx == nil {
		return
	}
	declined := false
	for _, ev := range fx.Events {
		if ev.Type == askonce.EventAnswered {
			// A decline without a default also applies the fallback
			// directive; that is the user's choice, not the hard cap.
			declined = true
		}
	}
	for _, ev := range fx.Events {
		if s, ok := statusEntered[ev.Type]; ok {
			o.jobs.Inc(string(s))
		}
		switch ev.Type {
		case askonce.EventAsked:
			o.questions.Inc(eventField(ev, "type"))
		case askonce.EventAutoResolved:
			o.autoResolved.Inc(eventField(ev, "source"))
		case askonce.EventGated:
			o.gated.Inc()
		case askonce.EventFallbackApplied:
			if !declined {
				o.hardCap.Inc("fallback")
			}
		case askonce.EventFailed:
			if job != nil && job.Error == askonce.HardCapMessage {
				o.hardCap.Inc("fail")
			}
		}
	}
}

// Attempt implements askonce.Observer: it counts the attempt and, for an
// interpreter call, records its latency.
func (o *Observer) Attempt(_ *askonce.Job, a askonce.Attempt) {
	if o == nil {
		return
	}
	o.attempts.Inc(string(a.Reason), string(a.Outcome))
	if a.Reason != askonce.ReasonReport {
		o.attemptSeconds.Observe(a.Duration.Seconds(), string(a.Outcome))
	}
}

// JobCreated counts a new job entering planning. The engine does not report
// creation to its Observer, so whoever calls Engine.Create (the HTTP
// server) calls this.
func (o *Observer) JobCreated(*askonce.Job) {
	if o == nil {
		return
	}
	o.jobs.Inc(string(askonce.StatusPlanning))
}

// ObserveDelivery records one builder delivery try.
func (o *Observer) ObserveDelivery(builder string, ok bool, d time.Duration) {
	if o == nil {
		return
	}
	outcome := "error"
	if ok {
		outcome = "ok"
	}
	o.deliveries.Inc(builder, outcome)
	o.deliverySeconds.Observe(d.Seconds(), builder, outcome)
}

// ObserveHTTP records one HTTP request by route pattern and status code.
func (o *Observer) ObserveHTTP(route string, status int, d time.Duration) {
	if o == nil {
		return
	}
	o.httpSeconds.Observe(d.Seconds(), route, strconv.Itoa(status))
}

// ObserveElicitation records one MCP elicitation by mode (form, url) and
// outcome (accept, decline, cancel, invalid, error).
func (o *Observer) ObserveElicitation(mode, outcome string) {
	if o == nil {
		return
	}
	o.elicitations.Inc(mode, outcome)
}

// eventField reads a string field of an event's data, "unknown" when absent.
func eventField(ev askonce.Event, name string) string {
	var m map[string]any
	if json.Unmarshal(ev.Data, &m) == nil {
		if s, ok := m[name].(string); ok && s != "" {
			return s
		}
	}
	return "unknown"
}
