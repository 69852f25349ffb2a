package server

import (
	"net/http"

	"github.com/askonce/askonce/api"
)

// route is one entry of the route table, which drives both the ServeMux
// and the OpenAPI document, so that the two cannot drift.
type route struct {
	Method  string
	Path    string // ServeMux path, with {name} wildcards
	Summary string
	// Public routes need no API key.
	Public bool
	// Request is the JSON body type (nil: no body); BodyOptional allows
	// an empty body.
	Request      any
	BodyOptional bool
	// Response is the JSON body type of Status, and of the AlsoStatus
	// statuses.
	Response   any
	Status     int
	AlsoStatus []int
	// ContentType, when set, is the non-JSON media type of the response.
	ContentType string
	// Stream: the route also answers text/event-stream.
	Stream bool
	// Async: the route starts planning, honours Prefer (respond-async,
	// wait=N) and may answer 202 with the job still planning.
	Async  bool
	Query  []param
	Header []param
	// Errors lists the error statuses the route documents.
	Errors []int

	api apiFunc
	raw rawFunc
}

// param is a query or header parameter.
type param struct {
	Name        string
	Type        string // OpenAPI type: string or integer
	Description string
}

func (rt *route) pattern() string { return rt.Method + " " + rt.Path }

var preferHeader = param{"Prefer", "string", "RFC 7240: respond-async answers 202 at once with the job still planning (declined, answering the outcome, when planning has already ended, as it has with an interpreter that plans inside the commit); wait=N waits at most N seconds (at most the server's --sync-wait) for the outcome before answering 202. Unknown preferences are ignored."}

var idempotencyHeader = param{"Idempotency-Key", "string", "Makes a retry safe: the first response to this key (and the same method, path and body) is returned again with Idempotent-Replayed: true."}

// routeTable is the API. Every route is registered on the mux and
// described in the OpenAPI document from here.
func (s *Server) routeTable() []*route {
	const (
		s400, s401, s404       = http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound
		s409, s413, s415, s422 = http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity
	)
	post := []int{s400, s401, s404, s409, s413, s415, s422}
	return []*route{
		{Method: "POST", Path: "/jobs", Summary: "Create a job from a goal; in managed mode, plan it or ask its one question.",
			Request: api.CreateJobRequest{}, Response: api.JobView{}, Status: http.StatusCreated,
			Header: []param{idempotencyHeader, preferHeader}, Async: true, Errors: []int{s400, s401, s409, s413, s415, s422}, api: s.createJob},
		{Method: "GET", Path: "/jobs", Summary: "List the tenant's jobs, newest first.",
			Response: api.JobList{}, Status: http.StatusOK, Errors: []int{s400, s401},
			Query: []param{
				{"status", "string", "Only jobs with this status."},
				{"sessionId", "string", "Only jobs of this session."},
				{"cursor", "string", "The nextCursor of the previous page."},
				{"limit", "integer", "Page size, 1-500 (default 50)."},
			}, api: s.listJobs},
		{Method: "GET", Path: "/jobs/{id}", Summary: "A job with its question, plan, attempts and usage.",
			Response: api.JobDetail{}, Status: http.StatusOK, Errors: []int{s401, s404}, api: s.getJob},
		{Method: "POST", Path: "/jobs/{id}/clarification", Summary: "Answer the job's question; never returns a new question.",
			Request: api.AnswerRequest{}, Response: api.JobView{}, Status: http.StatusOK,
			Header: []param{idempotencyHeader, preferHeader}, Async: true, Errors: post, api: s.answer},
		{Method: "POST", Path: "/jobs/{id}/cancel", Summary: "Cancel a planning or pending job.",
			Request: api.EmptyRequest{}, BodyOptional: true, Response: api.JobView{}, Status: http.StatusOK,
			Header: []param{idempotencyHeader}, Errors: post, api: s.cancel},
		{Method: "POST", Path: "/jobs/{id}/decline", Summary: "Decline the question: its default is applied, or the job proceeds under the fallback directive.",
			Request: api.EmptyRequest{}, BodyOptional: true, Response: api.JobView{}, Status: http.StatusOK,
			Header: []param{idempotencyHeader, preferHeader}, Async: true, Errors: post, api: s.decline},
		{Method: "POST", Path: "/jobs/{id}/report", Summary: "Gate mode: report the agent's outcome; the answer says what to do (ask, wait, resume, proceed, done, fail).",
			Request: api.ReportRequest{}, Response: api.ReportResponse{}, Status: http.StatusOK,
			Header: []param{idempotencyHeader}, Errors: post, api: s.report},
		{Method: "GET", Path: "/jobs/{id}/events", Summary: "The job's audit trail (at most 1000 events per response); with Accept: text/event-stream, a live stream.",
			Response: api.EventList{}, Status: http.StatusOK, Stream: true, Errors: []int{s400, s401, s404},
			Query:  []param{{"after", "integer", "Only events with an id greater than this."}},
			Header: []param{{"Last-Event-ID", "string", "Streams resume after this event id (overrides after)."}},
			raw:    s.events},
		{Method: "GET", Path: "/sessions/{id}/history", Summary: "The session's answered questions, oldest first.",
			Response: api.HistoryList{}, Status: http.StatusOK, Errors: []int{s401}, api: s.history},
		{Method: "GET", Path: "/memory", Summary: "The answers remembered in a project (scope=project&project=NAME) or in the whole tenant (scope=tenant), newest first, with who answered, when, expiry and uses.",
			Response: api.MemoryList{}, Status: http.StatusOK, Errors: []int{s401, s422},
			Query: []param{
				{"scope", "string", "project or tenant (a session's answers are GET /sessions/{id}/history)."},
				{"project", "string", "The project, with scope=project."},
			}, api: s.memory},
		{Method: "DELETE", Path: "/memory/{hash}", Summary: "Forget one remembered answer (hash is its questionHash), so that the next job asks again.",
			Response: api.Forgotten{}, Status: http.StatusOK, Errors: []int{s401, s404, s422},
			Query: []param{
				{"scope", "string", "session, project or tenant."},
				{"project", "string", "The project, with scope=project."},
				{"session", "string", "The session, with scope=session."},
			}, api: s.forget},
		{Method: "GET", Path: "/healthz", Summary: "200 {\"ok\":true} when the store answers, 503 otherwise.",
			Public: true, Response: api.Health{}, Status: http.StatusOK, AlsoStatus: []int{http.StatusServiceUnavailable}, api: s.healthz},
		{Method: "GET", Path: "/livez", Summary: "200 {\"ok\":true} while the process serves requests; it asks nothing of the store (a liveness probe: /healthz is the readiness one).",
			Public: true, Response: api.Health{}, Status: http.StatusOK, api: s.livez},
		{Method: "GET", Path: "/metrics", Summary: "Metrics in the Prometheus text exposition format (text/plain; version=0.0.4), or the format the scraper's Accept header asks for.",
			Public: true, Status: http.StatusOK, ContentType: "text/plain", raw: s.metrics},
		{Method: "GET", Path: "/openapi.json", Summary: "This document.",
			Public: true, Status: http.StatusOK, ContentType: "application/json", raw: s.serveOpenAPI},
	}
}
