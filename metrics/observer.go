package metrics

import (
	"strconv"
	"time"

	"github.com/askonce/askonce"
	"github.com/prometheus/client_golang/prometheus"
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
	// NameHardCap counts hard-cap outcomes (docs/protocol.md rule 3). Label:
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
	// NameMCPSessions is a gauge: the live MCP sessions of /mcp (initialized
	// and not yet closed, reclaimed or deleted).
	NameMCPSessions = "askonce_mcp_sessions"
	// NameMCPCalls is a gauge: the MCP tool calls in flight over /mcp,
	// including those waiting on an elicitation.
	NameMCPCalls = "askonce_mcp_calls_in_flight"
	// NameMCPRefused counts MCP requests refused because an API key was at
	// its limit. Label: limit (sessions, calls).
	NameMCPRefused = "askonce_mcp_refused_total"
	// NameReach counts the steps of reach policies that ran. Label:
	// kind (reminder, escalation).
	NameReach = "askonce_reach_steps_total"
	// NameExpiredUnanswered counts questions no one answered before
	// they expired (the job expired, or went on with its default).
	NameExpiredUnanswered = "askonce_questions_expired_unanswered_total"
	// NameAnswerSeconds is the time from a question's ask to a person's
	// answer or decline. Label: via (slack, web, email-link, http, mcp,
	// a2a, terminal).
	NameAnswerSeconds = "askonce_question_answer_seconds"
)

// WaitBuckets are histogram buckets, in seconds, for the wait of a
// question: from seconds to a day.
var WaitBuckets = []float64{5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400}

// SlowBuckets are histogram buckets, in seconds, for interpreter calls and
// deliveries, which may take minutes.
var SlowBuckets = []float64{0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// unknown is the label value of a typed field that is empty.
const unknown = "unknown"

// Observer records askonce's metrics in a Registry. It implements
// askonce.Observer (set it as Engine.Observer); the dispatcher reports
// deliveries with ObserveDelivery and the HTTP server requests with
// ObserveHTTP and creations with JobCreated. Every method is cheap and never
// blocks on I/O. A nil *Observer records nothing.
type Observer struct {
	up              prometheus.Gauge
	jobs            *prometheus.CounterVec
	questions       *prometheus.CounterVec
	autoResolved    *prometheus.CounterVec
	gated           prometheus.Counter
	hardCap         *prometheus.CounterVec
	attempts        *prometheus.CounterVec
	attemptSeconds  *prometheus.HistogramVec
	deliveries      *prometheus.CounterVec
	deliverySeconds *prometheus.HistogramVec
	httpSeconds     *prometheus.HistogramVec
	elicitations    *prometheus.CounterVec
	mcpSessions     prometheus.Gauge
	mcpCalls        prometheus.Gauge
	mcpRefused      *prometheus.CounterVec
	reach           *prometheus.CounterVec
	expired         prometheus.Counter
	answerSeconds   *prometheus.HistogramVec
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
		counter := func(name, help string, labels ...string) *prometheus.CounterVec {
			return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		}
		histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
			return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
		}
		o := &Observer{
			up:              prometheus.NewGauge(prometheus.GaugeOpts{Name: NameUp, Help: "1 while askonce is serving."}),
			jobs:            counter(NameJobs, "Jobs entering each status.", "status"),
			questions:       counter(NameQuestions, "Clarifying questions that reached a human.", "type"),
			autoResolved:    counter(NameAutoResolved, "Questions answered without a human, by source.", "source"),
			gated:           prometheus.NewCounter(prometheus.CounterOpts{Name: NameGated, Help: "Questions a gating policy declined to ask."}),
			hardCap:         counter(NameHardCap, "Interpreters that asked again after the one clarification, by outcome.", "outcome"),
			attempts:        counter(NameAttempts, "Interpreter calls and gate reports, by reason and outcome.", "reason", "outcome"),
			attemptSeconds:  histogram(NameAttemptSeconds, "Latency of interpreter calls.", SlowBuckets, "outcome"),
			deliveries:      counter(NameDeliveries, "Builder deliveries, by builder and outcome.", "builder", "outcome"),
			deliverySeconds: histogram(NameDeliverySeconds, "Latency of builder deliveries.", SlowBuckets, "builder", "outcome"),
			httpSeconds:     histogram(NameHTTPSeconds, "Latency of HTTP requests, by route pattern and status.", DefBuckets, "route", "status"),
			elicitations:    counter(NameElicitations, "MCP elicitations, by mode and outcome.", "mode", "outcome"),
			mcpSessions:     prometheus.NewGauge(prometheus.GaugeOpts{Name: NameMCPSessions, Help: "Live MCP sessions."}),
			mcpCalls:        prometheus.NewGauge(prometheus.GaugeOpts{Name: NameMCPCalls, Help: "MCP tool calls in flight."}),
			mcpRefused:      counter(NameMCPRefused, "MCP requests refused at an API key's limit, by limit.", "limit"),
			reach:           counter(NameReach, "Steps of reach policies that ran, by kind (reminder, escalation).", "kind"),
			expired:         prometheus.NewCounter(prometheus.CounterOpts{Name: NameExpiredUnanswered, Help: "Questions no one answered before they expired."}),
			answerSeconds:   histogram(NameAnswerSeconds, "Time from a question's ask to a person's answer or decline, by channel.", WaitBuckets, "via"),
		}
		r.reg.MustRegister(o.up, o.jobs, o.questions, o.autoResolved, o.gated, o.hardCap,
			o.attempts, o.attemptSeconds, o.deliveries, o.deliverySeconds, o.httpSeconds, o.elicitations,
			o.mcpSessions, o.mcpCalls, o.mcpRefused, o.reach, o.expired, o.answerSeconds)
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

// Transition implements askonce.Observer. It reads the transition's typed
// fields: the status entered (fx.From to job.Status), the question's type
// when one was asked, the answer's source when a question was resolved
// without a human, and the hard-cap outcome (fx.HardCap).
func (o *Observer) Transition(job *askonce.Job, fx *askonce.Effects) {
	if o == nil || job == nil || fx == nil {
		return
	}
	if job.Status != fx.From {
		o.jobs.WithLabelValues(label(string(job.Status))).Inc()
	}
	for _, ev := range fx.Events {
		switch ev.Type {
		case askonce.EventAsked:
			var t askonce.QuestionType
			if job.Question != nil {
				t = job.Question.Type
			}
			o.questions.WithLabelValues(label(string(t))).Inc()
		case askonce.EventAutoResolved:
			o.autoResolved.WithLabelValues(label(string(job.AnswerSource))).Inc()
		case askonce.EventGated:
			o.gated.Inc()
		}
	}
	if fx.HardCap != "" {
		o.hardCap.WithLabelValues(string(fx.HardCap)).Inc()
	}
	if fx.From == askonce.StatusPending && job.Status != askonce.StatusPending {
		switch {
		case job.Status == askonce.StatusExpired || job.AnswerSource == askonce.SourceTimeout:
			o.expired.Inc()
		case job.AnsweredVia != "" && job.AnsweredAt != nil && !fx.AskedAt.IsZero():
			o.answerSeconds.WithLabelValues(job.AnsweredVia).Observe(max(job.AnsweredAt.Sub(fx.AskedAt), 0).Seconds())
		}
	}
}

// ObserveReach counts one step of a reach policy that ran: kind is
// reminder or escalation. It is the dispatcher's OnReach hook.
func (o *Observer) ObserveReach(kind string) {
	if o == nil {
		return
	}
	o.reach.WithLabelValues(label(kind)).Inc()
}

// Attempt implements askonce.Observer: it counts the attempt and, for an
// interpreter call, records its latency.
func (o *Observer) Attempt(_ *askonce.Job, a askonce.Attempt) {
	if o == nil {
		return
	}
	o.attempts.WithLabelValues(label(string(a.Reason)), label(string(a.Outcome))).Inc()
	if a.Reason != askonce.ReasonReport {
		o.attemptSeconds.WithLabelValues(label(string(a.Outcome))).Observe(a.Duration.Seconds())
	}
}

// JobCreated counts a new job entering planning. The engine does not report
// creation to its Observer, so whoever calls Engine.Create (the HTTP
// server) calls this.
func (o *Observer) JobCreated(*askonce.Job) {
	if o == nil {
		return
	}
	o.jobs.WithLabelValues(string(askonce.StatusPlanning)).Inc()
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
	o.deliveries.WithLabelValues(builder, outcome).Inc()
	o.deliverySeconds.WithLabelValues(builder, outcome).Observe(d.Seconds())
}

// ObserveHTTP records one HTTP request by route pattern and status code.
func (o *Observer) ObserveHTTP(route string, status int, d time.Duration) {
	if o == nil {
		return
	}
	o.httpSeconds.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

// ObserveElicitation records one MCP elicitation by mode (form, url) and
// outcome (accept, decline, cancel, invalid, error).
func (o *Observer) ObserveElicitation(mode, outcome string) {
	if o == nil {
		return
	}
	o.elicitations.WithLabelValues(mode, outcome).Inc()
}

// AddMCPSessions adds delta (1 or -1) to the live MCP sessions.
func (o *Observer) AddMCPSessions(delta int) {
	if o == nil {
		return
	}
	o.mcpSessions.Add(float64(delta))
}

// AddMCPCalls adds delta (1 or -1) to the MCP tool calls in flight.
func (o *Observer) AddMCPCalls(delta int) {
	if o == nil {
		return
	}
	o.mcpCalls.Add(float64(delta))
}

// ObserveMCPRefused counts one MCP request refused at limit (sessions,
// calls).
func (o *Observer) ObserveMCPRefused(limit string) {
	if o == nil {
		return
	}
	o.mcpRefused.WithLabelValues(limit).Inc()
}

// label is v, or "unknown" when v is empty.
func label(v string) string {
	if v == "" {
		return unknown
	}
	return v
}
