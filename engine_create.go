package askonce

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// CreateRequest is what a client sends to create a job.
type CreateRequest struct {
	// ID, when set, is the new job's id: a UUID the caller chose, so that
	// it knows the id before the job is stored (the HTTP API records it
	// with an Idempotency-Key claim). A job with that id existing already
	// is ECONFLICT. Empty: the engine's NewID.
	ID        string
	TenantID  string
	SessionID string
	// Goal is the natural-language goal. Required.
	Goal    string
	Profile string
	// Files are candidate files the goal may refer to.
	Files []string
	// Candidates are the names of other things the goal may refer to
	// (Job.Candidates): at most MaxCandidates, each at most
	// MaxCandidateBytes of visible text.
	Candidates []string
	HardCap    HardCap
	// Notify names who is asked the job's question on Slack and by
	// email. Nil: the engine's DefaultRecipients.
	Notify *Recipients
	// Mode defaults to managed; gate jobs wait for an agent's reports.
	Mode       Mode
	SpecSchema json.RawMessage
	// Memory widens where the question is looked up and the answer
	// remembered (see Memory); the zero value is the engine's default.
	Memory Memory
}

// ProfileLister is implemented by interpreters with named profiles, so that
// an unknown profile is rejected when the job is created.
type ProfileLister interface {
	Profiles() []string
}

// Create persists a new job from a goal, then (in managed mode) runs the
// planning loop: the result is a planned job, a pending job with its one
// question, or a recorded failure. Every outcome is a stored job with an id.
// With a fast interpreter (Fast) the planning runs first and the job is
// stored with its outcome in one transaction.
func (e *Engine) Create(ctx context.Context, req CreateRequest) (*Job, error) {
	j, it, err := e.create(ctx, req)
	if err != nil || it == nil {
		return j, err
	}
	return e.interpret(ctx, j, *it)
}

// create validates and persists a new job. It returns the interpretation
// to run next: nil for a gate-mode job, and for a managed job of a fast
// interpreter, which is stored planned (or pending, or failed) already.
func (e *Engine) create(ctx context.Context, req CreateRequest) (*Job, *Interpretation, error) {
	j, minted, err := e.newJob(req)
	if err != nil {
		return nil, nil, err
	}
	e.lease(j)
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventCreated, At: j.CreatedAt}
	ev.Data = eventData(createdData{Mode: j.Mode, Profile: j.Profile, SessionID: j.SessionID})
	c := &Change{Job: j, Events: append(make([]Event, 0, chainEvents), ev)}
	initial := Interpretation{Prompt: j.Goal, Reason: ReasonInitial, newSession: minted}
	if j.Mode == ModeManaged && e.fast() {
		// Nothing is stored until the outcome is known: a crash before
		// the commit leaves nothing, and nothing was acknowledged.
		j, _, err := e.loop(ctx, j, nil, nil, &initial, strategy{atEnd: true, create: true}, c)
		return j, nil, err
	}
	if err := e.write(ctx, c, true, nil); err != nil {
		return nil, nil, err
	}
	if j.Mode == ModeGate {
		return j, nil, nil
	}
	return j, &initial, nil
}

// newJob validates req and returns the job it creates, and whether the
// job's session was named for it (the request named none).
func (e *Engine) newJob(req CreateRequest) (j *Job, mintedSession bool, err error) {
	goal := strings.TrimSpace(req.Goal)
	switch {
	case !utf8.ValidString(req.Goal):
		return nil, false, Errorf(EINVALID, "goal is not valid UTF-8")
	case goal == "":
		return nil, false, Errorf(EINVALID, "goal is empty")
	case len(goal) > MaxGoal:
		return nil, false, Errorf(EINVALID, "goal is %d bytes; the limit is %d", len(goal), MaxGoal)
	case len(req.Files) > MaxFiles:
		return nil, false, Errorf(EINVALID, "%d files given; the limit is %d", len(req.Files), MaxFiles)
	}
	for i, f := range req.Files {
		if _, err := ValidatePath(f); err != nil {
			return nil, false, Errorf(EINVALID, "files[%d]: %s", i, ErrorMessage(err))
		}
	}
	if err := ValidateCandidates(req.Candidates); err != nil {
		return nil, false, err
	}
	if err := req.Notify.Validate(); err != nil {
		return nil, false, err
	}
	notify := req.Notify
	if notify == nil {
		notify = e.DefaultRecipients
	}
	if err := notify.ValidateReach(e.questionTTL(), orDefault(e.ReachMinInterval, DefaultReachMinInterval)); err != nil {
		return nil, false, err
	}
	mode := req.Mode
	switch mode {
	case "":
		mode = ModeManaged
	case ModeManaged, ModeGate:
	default:
		return nil, false, Errorf(EINVALID, "mode %q is not managed or gate", mode)
	}
	hc := req.HardCap
	if hc == "" {
		hc = e.HardCap
	}
	switch hc {
	case "":
		hc = HardCapFallback
	case HardCapFallback, HardCapFail:
	default:
		return nil, false, Errorf(EINVALID, "hardCap %q is not fallback or fail", hc)
	}
	if mode == ModeManaged {
		if e.Interpreter == nil {
			return nil, false, Errorf(EINVALID, "this engine has no interpreter; create the job in gate mode")
		}
		if pl, ok := e.Interpreter.(ProfileLister); ok && req.Profile != "" && !slices.Contains(pl.Profiles(), req.Profile) {
			return nil, false, Errorf(EINVALID, "profile %q is unknown; known profiles: %s", req.Profile, strings.Join(pl.Profiles(), ", "))
		}
	}
	if len(req.SpecSchema) > 0 {
		if err := ValidSchema(req.SpecSchema); err != nil {
			return nil, false, err
		}
	}
	mem, err := e.memoryOf(req.Memory)
	if err != nil {
		return nil, false, err
	}
	id := req.ID
	if id == "" {
		id = e.newID()
	} else if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return nil, false, Errorf(EINVALID, "job id %q is not a UUID", id)
	}
	tenant := req.TenantID
	if tenant == "" {
		tenant = DefaultTenant
	}
	session := strings.TrimSpace(req.SessionID)
	if mintedSession = session == ""; mintedSession {
		session = e.newID()
	}
	now := e.now()
	return &Job{
		ID:                  id,
		TenantID:            tenant,
		SessionID:           session,
		Mode:                mode,
		Goal:                goal,
		Profile:             req.Profile,
		Files:               slices.Clone(req.Files),
		Candidates:          slices.Clone(req.Candidates),
		HardCap:             hc,
		Notify:              notify.Clone(),
		SpecSchema:          slices.Clone(req.SpecSchema),
		Memory:              mem,
		Title:               DeriveTitle(goal),
		Status:              StatusPlanning,
		ClarificationStatus: ClarificationNone,
		CreatedAt:           now,
		UpdatedAt:           now,
	}, mintedSession, nil
}
