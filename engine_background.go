package askonce

import (
	"context"
)

// Run is the planning of one job that goes on in the background, started
// by Start or by an Act in the background. A job's life does not depend on
// the request that started it: the run ends with a stored outcome whether
// or not anyone waits for it.
type Run struct {
	done chan struct{}
	job  *Job
	err  error
}

// Done is closed when the planning has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Result returns the job as planning left it (success, pending, a recorded
// failure) or the store error that stopped it. Call it after Done is
// closed; before that it returns nil, nil.
func (r *Run) Result() (*Job, error) {
	select {
	case <-r.done:
		return r.job, r.err
	default:
		return nil, nil
	}
}

// Wait waits for the run to end or ctx to be done, whichever is first. It
// reports whether the run ended.
func (r *Run) Wait(ctx context.Context) bool {
	select {
	case <-r.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// finished returns a Run that has already ended with j.
func finished(j *Job, err error) *Run {
	return &Run{done: closed, job: j, err: err}
}

// closed is the Done of every Run that has ended before it was returned.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Start persists a new job, like Create, and plans it in the background.
// It returns the stored job (status planning in managed mode) as soon as
// it is written, and the Run that ends when planning does. With a fast
// interpreter (Fast) there is nothing to wait for: the job is stored with
// its outcome, and the Run has ended. Validation errors are returned at
// once and nothing is stored.
//
// The background planning is not cancelled with ctx (only ctx's values
// carry over): it ends with a stored outcome, or, if the process dies, the
// job is resumed once its planning lease lapses, by another process's
// TakeOver or by Recover at the next start (docs/protocol.md rule 13).
func (e *Engine) Start(ctx context.Context, req CreateRequest) (*Job, *Run, error) {
	j, it, err := e.create(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return j, e.background(ctx, j, it), nil
}

// background runs the planning loop for j in a goroutine that Drain waits
// for. With no interpretation to run the Run has already ended.
func (e *Engine) background(ctx context.Context, j *Job, it *Interpretation) *Run {
	if it == nil {
		return finished(j, nil)
	}
	r := &Run{done: make(chan struct{})}
	ctx = context.WithoutCancel(ctx)
	start := j.Clone()
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		defer close(r.done)
		r.job, r.err = e.interpret(ctx, start, *it)
		if r.err != nil {
			e.logger().Error("background planning", "job", start.ID, "err", r.err)
		}
	}()
	return r
}

// Drain waits until every background planning run has ended, or ctx is
// done; then it returns ctx's error. Call it at shutdown after the last
// Start: runs cut off by the process's exit are resumed by another
// process (TakeOver) or at the next start (Recover); ReleaseLeases lets
// that happen without waiting for their leases to lapse.
func (e *Engine) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		e.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
