package mcp

import (
	"context"
	"time"

	"github.com/askonce/askonce"
)

// backend is what the MCP tools need of askonce: the Engine's
// operations, with planning awaited. engineBackend runs them on an
// embedded Engine (Config.Engine); clientBackend on a running askonce over
// its HTTP API (Config.Client, for askonce mcp --server), the reason this
// is an interface at all. Methods that plan (Create in managed mode, Act)
// return when planning has ended or ctx is done, whichever is first;
// planning itself goes on either way. The tenant arguments are the
// request's tenant; clientBackend ignores them (its API key names one).
type backend interface {
	Create(ctx context.Context, req askonce.CreateRequest) (*askonce.Job, error)
	// Act answers, declines or cancels, as Engine.Act does in the
	// background, and waits for the planning (a.Background is
	// ignored). The answer is typed; the engine validates it once
	// (askonce.ValidateAnswer). An act on a.Job does not read the job
	// again.
	Act(ctx context.Context, a askonce.Act) (*askonce.Job, error)
	Report(ctx context.Context, tenant, id string, r askonce.Report) (*askonce.ReportResult, error)
	Get(ctx context.Context, tenant, id string) (*askonce.Job, error)
	List(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error)
	// AnswerURL is the job's answer link, "" when it has none.
	AnswerURL(j *askonce.Job) string
}

// engineBackend is a backend over an embedded Engine. publicURL is the
// base of answer links, as in server.Config.
type engineBackend struct {
	engine    *askonce.Engine
	publicURL string
}

var _ backend = (*engineBackend)(nil)

// watcher is implemented by backends that can wake a wait when a job
// changes (see askonce.Watcher); the others are polled.
type watcher interface {
	Watch(tenant, id string) (<-chan struct{}, func())
}

// Watch wakes waits on the job when it changes, if the engine's store can.
func (b *engineBackend) Watch(tenant, id string) (<-chan struct{}, func()) {
	return b.engine.Watch(tenant, id)
}

// Create starts the job and waits for its planning.
func (b *engineBackend) Create(ctx context.Context, req askonce.CreateRequest) (*askonce.Job, error) {
	j, run, err := b.engine.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return b.await(ctx, j, run)
}

// Act does the act, in the background, and waits for the planning it
// leads to.
func (b *engineBackend) Act(ctx context.Context, a askonce.Act) (*askonce.Job, error) {
	a.Background = true
	if a.Do == askonce.ActCancel {
		ctx = context.WithoutCancel(ctx) // a cancel is not itself cancelled
	}
	j, run, err := b.engine.Act(ctx, a)
	if err != nil {
		return nil, err
	}
	return b.await(ctx, j, run)
}

// Report takes a gate-mode report.
func (b *engineBackend) Report(ctx context.Context, tenant, id string, r askonce.Report) (*askonce.ReportResult, error) {
	return b.engine.Report(context.WithoutCancel(ctx), tenant, id, r)
}

// Get returns the job.
func (b *engineBackend) Get(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	return b.engine.Get(ctx, tenant, id)
}

// List returns a page of the tenant's jobs.
func (b *engineBackend) List(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	return b.engine.List(ctx, tenant, f)
}

// AnswerURL returns the job's answer link.
func (b *engineBackend) AnswerURL(j *askonce.Job) string {
	return b.engine.AnswerURL(b.publicURL, j)
}

// await returns the run's outcome, or the job as stored when ctx ends
// first.
func (b *engineBackend) await(ctx context.Context, j *askonce.Job, run *askonce.Run) (*askonce.Job, error) {
	if run.Wait(ctx) {
		return run.Result()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if cur, err := b.engine.Get(ctx, j.TenantID, j.ID); err == nil {
		return cur, nil
	}
	return j, nil
}
