package mcp

import (
	"context"
	"time"

	"github.com/askonce/askonce"
)

// Backend is what the MCP tools need of askonce: the Engine's
// operations, with planning awaited. EngineBackend runs them on an
// embedded Engine; ClientBackend on a running askonce over its HTTP API,
// the reason this is an interface at all. Methods that plan (Create in
// managed mode, Act) return when planning has ended or ctx is done,
// whichever is first; planning itself goes on either way.
type Backend interface {
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

// EngineBackend is a Backend over an embedded Engine. PublicURL is the
// base of answer links, as in server.Config.
type EngineBackend struct {
	Engine    *askonce.Engine
	PublicURL string
}

var _ Backend = (*EngineBackend)(nil)

// watcher is implemented by backends that can wake a wait when a job
// changes (see askonce.Watcher); the others are polled.
type watcher interface {
	Watch(tenant, id string) (<-chan struct{}, func())
}

// Watch wakes waits on the job when it changes, if the engine's store can.
func (b *EngineBackend) Watch(tenant, id string) (<-chan struct{}, func()) {
	return b.Engine.Watch(tenant, id)
}

// Create starts the job and waits for its planning.
func (b *EngineBackend) Create(ctx context.Context, req askonce.CreateRequest) (*askonce.Job, error) {
	j, run, err := b.Engine.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return b.await(ctx, j, run)
}

// Act does the act, in the background, and waits for the planning it
// leads to.
func (b *EngineBackend) Act(ctx context.Context, a askonce.Act) (*askonce.Job, error) {
	a.Background = true
	if a.Do == askonce.ActCancel {
		ctx = context.WithoutCancel(ctx) // a cancel is not itself cancelled
	}
	j, run, err := b.Engine.Act(ctx, a)
	if err != nil {
		return nil, err
	}
	return b.await(ctx, j, run)
}

// Report takes a gate-mode report.
func (b *EngineBackend) Report(ctx context.Context, tenant, id string, r askonce.Report) (*askonce.ReportResult, error) {
	return b.Engine.Report(context.WithoutCancel(ctx), tenant, id, r)
}

// Get returns the job.
func (b *EngineBackend) Get(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	return b.Engine.Get(ctx, tenant, id)
}

// List returns a page of the tenant's jobs.
func (b *EngineBackend) List(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	return b.Engine.List(ctx, tenant, f)
}

// AnswerURL returns the job's answer link.
func (b *EngineBackend) AnswerURL(j *askonce.Job) string {
	return b.Engine.AnswerURL(b.PublicURL, j)
}

// await returns the run's outcome, or the job as stored when ctx ends
// first.
func (b *EngineBackend) await(ctx context.Context, j *askonce.Job, run *askonce.Run) (*askonce.Job, error) {
	if run.Wait(ctx) {
		return run.Result()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if cur, err := b.Engine.Get(ctx, j.TenantID, j.ID); err == nil {
		return cur, nil
	}
	return j, nil
}
