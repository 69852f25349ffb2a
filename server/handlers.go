package server

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

func (s *Server) createJob(c *call) (int, any, error) {
	var req api.CreateJobRequest
	if err := decode(c.body, &req, false); err != nil {
		return 0, nil, err
	}
	goal := req.Goal
	if req.Prompt != "" {
		if goal != "" && goal != req.Prompt {
			return 0, nil, askonce.Errorf(askonce.EINVALID, "give the goal as goal or as prompt (the older name), not both")
		}
		goal = req.Prompt
	}
	var mem askonce.Memory
	if req.Memory != nil {
		mem = *req.Memory
	}
	spec := req.SpecSchema
	if bytes.Equal(bytes.TrimSpace(spec), []byte("null")) {
		spec = nil
	}
	// A malformed recipient is refused as such before the key's
	// restriction is checked, as on MCP and A2A (askonce.Caller).
	if err := c.caller.AllowRecipients(req.Notify); err != nil {
		return 0, nil, err
	}
	j, run, err := s.engine.Start(c.ctx(), askonce.CreateRequest{
		ID:         c.newJobID,
		TenantID:   c.tenant,
		SessionID:  req.SessionID,
		Goal:       goal,
		Profile:    req.Profile,
		Files:      req.Files,
		Candidates: req.Candidates,
		HardCap:    req.HardCap,
		Mode:       req.Mode,
		SpecSchema: spec,
		Notify:     req.Notify,
		Memory:     mem,
	})
	if err != nil {
		return 0, nil, err
	}
	c.info.jobID = j.ID
	s.obs.JobCreated(j)
	// Still planning after the wait: a 202, without needsClarification,
	// which is not known yet.
	return s.outcome(c, j, run, func(done *askonce.Job) (int, any) {
		return http.StatusCreated, s.createdView(done)
	})
}

// createdView is a created job as POST /jobs answers it.
func (s *Server) createdView(j *askonce.Job) api.JobView {
	v := s.viewOf(j)
	// Only creation can ask (docs/protocol.md rule 3).
	needs := j.Status == askonce.StatusPending && j.ClarificationStatus == askonce.ClarificationAsked && j.Question != nil
	v.NeedsClarification = &needs
	return v
}

func (s *Server) listJobs(c *call) (int, any, error) {
	q := c.r.URL.Query()
	f := askonce.JobFilter{
		Status:    askonce.Status(q.Get("status")),
		SessionID: q.Get("sessionId"),
		Cursor:    q.Get("cursor"),
	}
	if f.Status != "" && !f.Status.Valid() {
		return 0, nil, badRequest("status %q is not a job status; use one of %s", f.Status, strings.Join(enum(askonce.Statuses...), ", "))
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 500 {
			return 0, nil, badRequest("limit %q is not an integer from 1 to 500", l)
		}
		f.Limit = n
	}
	page, err := s.engine.List(c.r.Context(), c.tenant, f)
	if askonce.ErrorCode(err) == askonce.EINVALID {
		// Only the query can be invalid here (an unknown cursor).
		return 0, nil, badRequest("%s", askonce.ErrorMessage(err))
	}
	if err != nil {
		return 0, nil, err
	}
	out := api.JobList{Jobs: make([]api.JobView, 0, len(page.Jobs)), NextCursor: page.NextCursor}
	for _, j := range page.Jobs {
		out.Jobs = append(out.Jobs, s.viewOf(j))
	}
	return http.StatusOK, out, nil
}

func (s *Server) getJob(c *call) (int, any, error) {
	id := c.r.PathValue("id")
	j, err := s.engine.Get(c.r.Context(), c.tenant, id)
	if err != nil {
		return 0, nil, err
	}
	attempts, err := s.engine.Attempts(c.r.Context(), c.tenant, id)
	if err != nil {
		return 0, nil, err
	}
	if attempts == nil {
		attempts = []askonce.Attempt{}
	}
	return http.StatusOK, api.JobDetail{JobView: s.viewOf(j), Attempts: attempts}, nil
}

func (s *Server) answer(c *call) (int, any, error) {
	var req api.AnswerRequest
	if err := decode(c.body, &req, false); err != nil {
		return 0, nil, err
	}
	a, err := req.Answer.Parse()
	if err != nil {
		return 0, nil, err
	}
	return s.planned(c)(s.engine.Act(c.ctx(), askonce.Act{Do: askonce.ActAnswer, Answer: a, DontRemember: req.DontRemember, TenantID: c.tenant, ID: c.r.PathValue("id"), Background: true}))
}

// planned renders the outcome of an answer or a decline: 200 with the job
// when planning ended within the request's wait, else 202 with the job
// still planning.
func (s *Server) planned(c *call) func(*askonce.Job, *askonce.Run, error) (int, any, error) {
	return func(j *askonce.Job, run *askonce.Run, err error) (int, any, error) {
		if err != nil {
			return 0, nil, err
		}
		return s.outcome(c, j, run, func(done *askonce.Job) (int, any) {
			return http.StatusOK, s.viewOf(done)
		})
	}
}

// outcome waits for run as the request allows (see await) and renders the
// job it ended with through settled, or answers 202 with j, the job as
// committed, while planning goes on.
func (s *Server) outcome(c *call, j *askonce.Job, run *askonce.Run, settled func(*askonce.Job) (int, any)) (int, any, error) {
	done, err := s.await(c, run)
	if err != nil {
		// The change committed (j); planning it did not end stored (the
		// store went away meanwhile) and is resumed when the job's
		// lease lapses: as a 202 says, never a failure.
		s.log.Warn("planning after a committed change failed; it is resumed later", "job", j.ID, "err", err)
		done = nil
	}
	if done == nil {
		status, v := s.accepted(c, j)
		return status, v, nil
	}
	status, v := settled(done)
	return status, v, nil
}

func (s *Server) cancel(c *call) (int, any, error) {
	if err := decode(c.body, &api.EmptyRequest{}, true); err != nil {
		return 0, nil, err
	}
	j, _, err := s.engine.Act(c.ctx(), askonce.Act{Do: askonce.ActCancel, TenantID: c.tenant, ID: c.r.PathValue("id")})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.viewOf(j), nil
}

func (s *Server) decline(c *call) (int, any, error) {
	if err := decode(c.body, &api.EmptyRequest{}, true); err != nil {
		return 0, nil, err
	}
	return s.planned(c)(s.engine.Act(c.ctx(), askonce.Act{Do: askonce.ActDecline, TenantID: c.tenant, ID: c.r.PathValue("id"), Background: true}))
}

func (s *Server) report(c *call) (int, any, error) {
	var req api.ReportRequest
	if err := decode(c.body, &req, false); err != nil {
		return 0, nil, err
	}
	rep := askonce.Report{Question: req.Question, Plan: req.Plan, Error: strings.TrimSpace(req.Error), Title: req.Title, Raw: req.Raw}
	if u := req.Usage; u != nil {
		if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CostUSD < 0 {
			return 0, nil, askonce.Errorf(askonce.EINVALID, "usage must not be negative")
		}
		rep.Usage = *u
	}
	res, err := s.engine.Report(c.ctx(), c.tenant, c.r.PathValue("id"), rep)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, api.ReportResponse{
		Action:         res.Action,
		Question:       res.Question,
		Answer:         res.Answer,
		Value:          res.Value,
		ResolvedPrompt: res.ResolvedPrompt,
		Directive:      res.Directive,
		Default:        res.Default,
		Job:            s.viewOf(res.Job),
	}, nil
}

func (s *Server) history(c *call) (int, any, error) {
	entries, err := s.engine.History(c.r.Context(), c.tenant, c.r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	if entries == nil {
		entries = []askonce.HistoryEntry{}
	}
	return http.StatusOK, api.HistoryList{Entries: entries}, nil
}

func (s *Server) memory(c *call) (int, any, error) {
	q := c.r.URL.Query()
	scope, err := askonce.ParseMemoryScope("scope", q.Get("scope"))
	if err != nil {
		return 0, nil, err
	}
	entries, err := s.engine.Memory(c.r.Context(), askonce.MemoryFilter{TenantID: c.tenant, Scope: scope, Project: q.Get("project")})
	if err != nil {
		return 0, nil, err
	}
	if entries == nil {
		entries = []askonce.HistoryEntry{}
	}
	return http.StatusOK, api.MemoryList{Entries: entries}, nil
}

func (s *Server) forget(c *call) (int, any, error) {
	q := c.r.URL.Query()
	scope, err := askonce.ParseMemoryScope("scope", q.Get("scope"))
	if err != nil {
		return 0, nil, err
	}
	k := askonce.MemoryKey{TenantID: c.tenant, Scope: scope, SessionID: q.Get("session"), Project: q.Get("project"), QuestionHash: c.r.PathValue("hash")}
	if err := s.engine.Forget(c.r.Context(), k); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, api.Forgotten{Scope: scope, QuestionHash: k.QuestionHash}, nil
}

// healthID is a job id no job has: looking it up is the cheapest query
// that proves the store answers.
const healthID = "00000000-0000-0000-0000-000000000000"

func (s *Server) healthz(c *call) (int, any, error) {
	ctx, cancel := context.WithTimeout(c.r.Context(), 2*time.Second)
	defer cancel()
	_, err := s.engine.Get(ctx, askonce.DefaultTenant, healthID)
	if err == nil || askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return http.StatusOK, api.Health{OK: true, Version: s.version}, nil
	}
	c.info.err = err
	return http.StatusServiceUnavailable, api.Health{OK: false, Version: s.version, Error: "the store is not answering"}, nil
}

// livez says only that the process serves requests: a store that is down
// must not get a replica restarted, only taken out of the Service
// (/healthz).
func (s *Server) livez(*call) (int, any, error) {
	return http.StatusOK, api.Health{OK: true, Version: s.version}, nil
}

func (s *Server) metrics(w http.ResponseWriter, c *call) {
	s.registry.ServeHTTP(w, c.r)
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *call) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(s.openapi)
}
