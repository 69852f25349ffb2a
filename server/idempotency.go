package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
	"github.com/google/uuid"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// DefaultOwnerLease is the default of Config.OwnerLease.
const DefaultOwnerLease = 15 * time.Second

// idempotent runs rt at most once per (tenant, Idempotency-Key): see the
// package documentation.
func (s *Server) idempotent(w http.ResponseWriter, c *call, key string, rt *route) {
	if len(key) > MaxIdempotencyKey || !visibleASCII(key) {
		s.writeError(w, c.r, badRequest("Idempotency-Key must be 1-%d visible ASCII characters", MaxIdempotencyKey))
		return
	}
	sum := sha256.Sum256(c.body)
	ctx := context.WithoutCancel(c.r.Context())
	rec := &askonce.IdempotencyRecord{
		TenantID:    c.tenant,
		Key:         key,
		Fingerprint: c.r.Method + " " + c.r.URL.Path + " " + hex.EncodeToString(sum[:]),
		Owner:       s.lease.owner,
	}
	if err := s.aboutJob(ctx, c, rt, rec); err != nil {
		s.writeError(w, c.r, err)
		return
	}
	done, err := s.lease.hold(ctx)
	if err != nil {
		s.writeError(w, c.r, fmt.Errorf("renew idempotency lease: %w", err))
		return
	}
	defer done()

	prev, tookOver, err := s.idem.ClaimIdempotencyKey(ctx, rec)
	switch {
	case err != nil:
		s.writeError(w, c.r, err)
		return
	case tookOver:
		// The first request's process died, or its request failed: go on
		// with its job.
		rec = prev
		if status, body, ok := s.adopt(ctx, c, rt, rec); ok {
			s.settle(ctx, c, rec, status, body)
			w.Header().Set("Idempotent-Replayed", "true")
			writeJSON(w, status, body)
			return
		}
	case prev != nil && prev.Fingerprint != rec.Fingerprint:
		s.writeError(w, c.r, reqErrorf(http.StatusUnprocessableEntity, api.CodeIdempotencyMismatch,
			"Idempotency-Key %q was already used for another request (a different method, path or body); use a new key for a new request", key))
		return
	case prev != nil && prev.Status == 0:
		// A live process is still running it: the retry is worth making
		// once that process has finished or its lease has lapsed.
		w.Header().Set("Retry-After", strconv.Itoa(int(max(time.Second, s.lease.ttl).Seconds())))
		s.writeError(w, c.r, reqErrorf(http.StatusConflict, askonce.ECONFLICT, "a request with this Idempotency-Key is in progress; retry when it has finished"))
		return
	case prev != nil:
		if prev.Status == http.StatusAccepted && prev.JobID != "" {
			w.Header().Set("Location", "/jobs/"+prev.JobID)
		}
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, prev.Status, s.withAnswerURL(c.tenant, prev.Body))
		return
	}

	if rt.Path == "/jobs" {
		c.newJobID = rec.JobID
	}
	status, body := s.respond(c, rt.api)
	if tookOver && status == http.StatusConflict {
		// The job changed after the takeover looked: the first request's
		// process was slow rather than dead. Its job is the answer.
		if st, b, ok := s.adopt(ctx, c, rt, rec); ok {
			status, body = st, b
			w.Header().Set("Idempotent-Replayed", "true")
		}
	}
	s.settle(ctx, c, rec, status, body)
	writeJSON(w, status, body)
}

// aboutJob names the job a request is about in rec before it is claimed:
// a new id for a create, else the path's job and its current version.
func (s *Server) aboutJob(ctx context.Context, c *call, rt *route, rec *askonce.IdempotencyRecord) error {
	switch {
	case rt.Path == "/jobs":
		rec.JobID = uuid.Must(uuid.NewV7()).String()
	case strings.HasPrefix(rt.Path, "/jobs/{id}"):
		rec.JobID = c.r.PathValue("id")
		j, err := s.engine.Get(ctx, c.tenant, rec.JobID)
		switch askonce.ErrorCode(err) {
		case "":
			rec.BaseVersion = j.Version
		case askonce.ENOTFOUND:
			// The handler answers 404; nothing to compare.
		default:
			return err
		}
	}
	return nil
}

// adopt answers a retry that took over the claim of a request that never
// responded. If that request already changed its job (the job exists
// with a version past rec.BaseVersion), the answer is the job as it is
// now, rendered as the route's success response; ok is false when it
// changed nothing, and the retry runs the request again. A report is
// always run again: its answer (the agent's next action) cannot be read
// from the job, and the engine answers a repeated report from the job's
// state.
func (s *Server) adopt(ctx context.Context, c *call, rt *route, rec *askonce.IdempotencyRecord) (status int, body []byte, ok bool) {
	if rec.JobID == "" || rt.Path == "/jobs/{id}/report" {
		return 0, nil, false
	}
	j, err := s.engine.Get(ctx, c.tenant, rec.JobID)
	switch {
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		return 0, nil, false
	case err != nil:
		status, body = s.renderError(c.r, err)
		return status, body, true
	case j.Version <= rec.BaseVersion:
		return 0, nil, false
	}
	c.info.jobID = j.ID
	status, v := http.StatusOK, any(s.viewOf(j))
	switch {
	case j.Status == askonce.StatusPlanning:
		// Planning goes on (recovered, or still running): as a 202 says.
		status, v = s.accepted(c, j)
	case rt.Path == "/jobs":
		status, v = http.StatusCreated, s.createdView(j)
	}
	body, err = encodeJSON(v)
	if err != nil {
		status, body = s.renderError(c.r, fmt.Errorf("encode response: %w", err))
	}
	return status, body, true
}

// settle stores a response to a claimed key, or abandons the claim when
// the response is a 5xx: that is not worth repeating, and a retry takes
// the claim over (running the request again if it changed nothing).
func (s *Server) settle(ctx context.Context, c *call, rec *askonce.IdempotencyRecord, status int, body []byte) {
	var err error
	if status >= http.StatusInternalServerError {
		err = s.idem.AbandonIdempotencyKey(ctx, rec)
	} else {
		rec.Status, rec.Body = status, withoutAnswerURL(body)
		err = s.idem.CompleteIdempotencyKey(ctx, rec)
	}
	if err != nil {
		s.log.Error("record idempotency key", "route", c.info.route, "job", c.info.jobID, "err", err)
	}
}

// A stored response holds no answer link: the link's token is a
// credential, and a copy of the database must not open pending questions.
// withoutAnswerURL blanks answerUrl (of the job, or of the job a conflict
// carries) before the response is stored; withAnswerURL derives it again
// from the tenant and the job id when the response is replayed, so the
// replay is the response as first sent. answerUrl is omitted when empty,
// so a blank one is never in a response, and inside a JSON string its
// quotes would be escaped: the blank marks a link to derive and nothing
// else.
var blankAnswerURL = []byte(`"answerUrl":""`)

// linkedJob is what locates a job's answer link in a response.
type linkedJob struct {
	JobID     string `json:"jobId"`
	AnswerURL string `json:"answerUrl"`
	Job       *struct {
		JobID     string `json:"jobId"`
		AnswerURL string `json:"answerUrl"`
	} `json:"job"`
}

func withoutAnswerURL(body []byte) []byte {
	var v linkedJob
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	link := v.AnswerURL
	if link == "" && v.Job != nil {
		link = v.Job.AnswerURL
	}
	if link == "" {
		return body
	}
	field := append([]byte(`"answerUrl":`), bytes.TrimSpace(mustJSON(link))...)
	return bytes.Replace(body, field, blankAnswerURL, 1)
}

func (s *Server) withAnswerURL(tenant string, body []byte) []byte {
	if !bytes.Contains(body, blankAnswerURL) {
		return body
	}
	var v linkedJob
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	id := v.JobID
	if id == "" && v.Job != nil {
		id = v.Job.JobID
	}
	// The link of the job as the response showed it: pending, asking.
	link := s.AnswerURL(&askonce.Job{TenantID: tenant, ID: id, Status: askonce.StatusPending, ClarificationStatus: askonce.ClarificationAsked})
	if id == "" || link == "" {
		return body
	}
	field := append([]byte(`"answerUrl":`), bytes.TrimSpace(mustJSON(link))...)
	return bytes.Replace(body, blankAnswerURL, field, 1)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// lease is this process's ownership of its idempotency claims. It is
// renewed, every third of its ttl, only while a keyed request is in
// flight; an idle process's lease may lapse, since it holds no claim.
type lease struct {
	store askonce.IdempotencyStore
	owner string
	ttl   time.Duration
	log   func(err error)

	mu       sync.Mutex
	until    time.Time     // the lease surely holds before this
	inFlight int           // keyed requests running
	stop     chan struct{} // ends the heartbeat; nil while none runs
}

// hold makes sure the lease is held and keeps it renewed until done is
// called.
func (l *lease) hold(ctx context.Context) (done func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Until(l.until) < l.ttl/2 {
		if err := l.renew(ctx); err != nil {
			return nil, err
		}
	}
	l.inFlight++
	if l.stop == nil {
		l.stop = make(chan struct{})
		go l.heartbeat(l.stop)
	}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.inFlight--; l.inFlight == 0 {
			close(l.stop)
			l.stop = nil
		}
	}, nil
}

// renew renews the lease; l.mu is held.
func (l *lease) renew(ctx context.Context) error {
	start := time.Now()
	if err := l.store.RenewIdempotencyLease(ctx, l.owner, l.ttl); err != nil {
		return err
	}
	l.until = start.Add(l.ttl)
	return nil
}

func (l *lease) heartbeat(stop chan struct{}) {
	t := time.NewTicker(max(l.ttl/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			l.mu.Lock()
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			err := l.renew(ctx)
			cancel()
			l.mu.Unlock()
			if err != nil {
				l.log(err)
			}
		}
	}
}
