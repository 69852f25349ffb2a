package askonce

import "sync"

// maxPending bounds pendingJobs: past it, the engine forgets every job
// it remembers and starts again.
const maxPending = 256

// pendingJobs are the managed jobs this engine committed as pending,
// as they were committed, so that an answer (or a decline, or a cancel)
// starts from the job in hand instead of reading it back from the store.
//
// It only spares that read; it decides nothing. The transition computed
// from a remembered job commits with the compare-and-set on its version
// like any other (rule 2), and if anything fails, that write's conflict
// included, the engine starts again from the stored job (Engine.begin):
// a remembered job that another engine or process has moved on since
// costs a wasted try, never a wrong outcome. A pending managed job
// changes only by compare-and-set (the writes that leave the version
// alone, a retried attempt and a lease renewal, are made to jobs in
// planning), so a remembered job of the stored version is the stored job.
type pendingJobs struct {
	mu   sync.Mutex
	jobs map[JobRef]*Job
}

// keep remembers a copy of j, just committed, if it is a managed job
// waiting for its answer; otherwise it forgets the job.
func (p *pendingJobs) keep(j *Job) {
	ref := JobRef{TenantID: j.TenantID, ID: j.ID}
	if j.Mode != ModeManaged || j.Status != StatusPending {
		p.mu.Lock()
		delete(p.jobs, ref)
		p.mu.Unlock()
		return
	}
	c := j.Clone()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.jobs == nil {
		p.jobs = make(map[JobRef]*Job)
	}
	if len(p.jobs) >= maxPending {
		clear(p.jobs)
	}
	p.jobs[ref] = c
}

// take returns the remembered job and forgets it, or nil.
func (p *pendingJobs) take(tenant, id string) *Job {
	ref := JobRef{TenantID: tenant, ID: id}
	p.mu.Lock()
	defer p.mu.Unlock()
	j := p.jobs[ref]
	if j != nil {
		delete(p.jobs, ref)
	}
	return j
}
