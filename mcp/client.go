package mcp

import (
	"context"
	"errors"
	"sync"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// clientBackend is a backend over a running askonce's HTTP API (askonce
// mcp --server). The tenant is the client's API key's; the tenant
// arguments are ignored. Jobs still planning when the API answers are
// awaited with client.WaitJob.
type clientBackend struct {
	client *client.Client
	urls   sync.Map // job id -> answer link last seen
}

var _ backend = (*clientBackend)(nil)

func (b *clientBackend) settle(ctx context.Context, v *client.JobView, err error) (*askonce.Job, error) {
	if err != nil {
		return nil, clientError(err)
	}
	if v.Status == askonce.StatusPlanning && v.Mode == askonce.ModeManaged {
		d, err := b.client.WaitJob(ctx, v.JobID)
		if err != nil {
			if ctx.Err() != nil {
				return b.job(v), nil
			}
			return nil, clientError(err)
		}
		v = &d.JobView
	}
	return b.job(v), nil
}

// Create creates the job and waits for its planning.
func (b *clientBackend) Create(ctx context.Context, req askonce.CreateRequest) (*askonce.Job, error) {
	v, err := b.client.Create(ctx, client.CreateRequest{Goal: req.Goal, SessionID: req.SessionID, Profile: req.Profile, Files: req.Files, Candidates: req.Candidates, HardCap: req.HardCap, Mode: req.Mode, SpecSchema: req.SpecSchema, Memory: memoryArg(req.Memory), Notify: req.Notify})
	return b.settle(ctx, v, err)
}

// memoryArg is a job's memory on the wire: nil for the default.
func memoryArg(m askonce.Memory) *askonce.Memory {
	if m.IsZero() {
		return nil
	}
	return &m
}

// Act answers (as the typed JSON the HTTP API takes), declines or
// cancels, and waits for the re-planning. The job is a.Job's, else
// a.ID; the tenant is the API key's.
func (b *clientBackend) Act(ctx context.Context, a askonce.Act) (*askonce.Job, error) {
	id := a.ID
	if a.Job != nil {
		id = a.Job.ID
	}
	var v *client.JobView
	var err error
	switch a.Do {
	case askonce.ActAnswer:
		v, err = b.client.Reply(ctx, id, client.AnswerRequest{Answer: client.Answer(a.Answer.JSON()), DontRemember: a.DontRemember})
	case askonce.ActDecline:
		v, err = b.client.Decline(ctx, id)
	case askonce.ActCancel:
		if v, err = b.client.Cancel(ctx, id); err != nil {
			return nil, clientError(err)
		}
		return b.job(v), nil
	default:
		return nil, askonce.Errorf(askonce.EINVALID, "act %q is not answer, decline or cancel", a.Do)
	}
	return b.settle(ctx, v, err)
}

// Report sends a gate-mode report.
func (b *clientBackend) Report(ctx context.Context, _, id string, r askonce.Report) (*askonce.ReportResult, error) {
	rr, err := b.client.Report(ctx, id, client.ReportRequest{Question: r.Question, Plan: r.Plan, Error: r.Error, Title: r.Title, Raw: r.Raw})
	if err != nil {
		return nil, clientError(err)
	}
	return &askonce.ReportResult{Action: rr.Action, Question: rr.Question, Answer: rr.Answer, Value: rr.Value, ResolvedPrompt: rr.ResolvedPrompt, Directive: rr.Directive, Default: rr.Default, Job: b.job(&rr.Job)}, nil
}

// Get returns the job.
func (b *clientBackend) Get(ctx context.Context, _, id string) (*askonce.Job, error) {
	d, err := b.client.Get(ctx, id)
	if err != nil {
		return nil, clientError(err)
	}
	return b.job(&d.JobView), nil
}

// List returns a page of jobs.
func (b *clientBackend) List(ctx context.Context, _ string, f askonce.JobFilter) (*askonce.JobPage, error) {
	l, err := b.client.List(ctx, client.ListOptions{Status: f.Status, SessionID: f.SessionID, Cursor: f.Cursor, Limit: f.Limit})
	if err != nil {
		return nil, clientError(err)
	}
	page := &askonce.JobPage{NextCursor: l.NextCursor}
	for i := range l.Jobs {
		page.Jobs = append(page.Jobs, b.job(&l.Jobs[i]))
	}
	return page, nil
}

// AnswerURL is the answer link the server last showed for the job.
func (b *clientBackend) AnswerURL(j *askonce.Job) string {
	if j.Status != askonce.StatusPending {
		return ""
	}
	u, _ := b.urls.Load(j.ID)
	s, _ := u.(string)
	return s
}

// job maps the API's job view to the domain's job.
func (b *clientBackend) job(v *client.JobView) *askonce.Job {
	if v.AnswerURL != "" {
		b.urls.Store(v.JobID, v.AnswerURL)
	}
	j := &askonce.Job{
		ID: v.JobID, SessionID: v.SessionID, Mode: v.Mode, Goal: v.Goal, Profile: v.Profile, Files: v.Files, Candidates: v.Candidates,
		HardCap: v.HardCap, Title: v.Title, Status: v.Status, ClarificationStatus: v.ClarificationStatus,
		Answer: clientAnswer(v), AnswerSource: v.ClarificationSource, AnsweredAt: v.ClarificationAnsweredAt,
		ResolvedPrompt: v.ResolvedPrompt, Plan: v.Plan, Result: v.Result, Error: v.Error, Usage: v.Usage,
		AttemptCount: v.AttemptCount, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
	}
	if v.ClarificationQuestion != "" {
		j.Question = &askonce.Question{
			Type: v.ClarificationType, Text: v.ClarificationQuestion, Options: v.ClarificationOptions,
			AllowOther: v.ClarificationAllowOther, Reason: v.ClarificationReason, Default: v.ClarificationDefault,
			ExpiresAt: v.ClarificationExpiresAt,
		}
	}
	return j
}

// clientError maps an API error to the domain's.
func clientError(err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return err
	}
	e := askonce.Errorf(ce.Code, "%s", ce.Message)
	e.Allowed = ce.Allowed
	return e
}

// clientAnswer is the answer of the API's job view: its typed value, else
// its text.
func clientAnswer(v *client.JobView) askonce.Answer {
	if len(v.ClarificationValue) > 0 {
		if a, err := askonce.ParseAnswerJSON(v.ClarificationValue); err == nil {
			return a
		}
	}
	if v.ClarificationAnswer == "" {
		return askonce.Answer{}
	}
	return askonce.TextAnswer(v.ClarificationAnswer)
}
