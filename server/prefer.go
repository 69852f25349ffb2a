package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// DefaultSyncWait is how long a create, answer or decline waits for
// planning before it answers 202 with the job still planning.
const DefaultSyncWait = 30 * time.Second

// preference is what a request's Prefer headers (RFC 7240) ask of a
// request that starts planning.
type preference struct {
	async bool          // respond-async, or wait=0
	wait  time.Duration // wait=N; 0 when not given
	given bool          // wait=N was given
}

// parsePrefer reads every Prefer header. Preferences it does not know,
// and values it cannot read, are ignored, as RFC 7240 says.
func parsePrefer(h http.Header) preference {
	var p preference
	for _, line := range h.Values("Prefer") {
		for _, item := range strings.Split(line, ",") {
			// Parameters after ';' qualify a preference; none of ours
			// take any.
			item, _, _ = strings.Cut(item, ";")
			name, value, _ := strings.Cut(strings.TrimSpace(item), "=")
			value = strings.Trim(strings.TrimSpace(value), `"`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "respond-async":
				p.async = true
			case "wait":
				n, err := strconv.ParseUint(value, 10, 32)
				if err != nil {
					continue
				}
				p.wait, p.given = time.Duration(n)*time.Second, true
				if n == 0 {
					p.async = true
				}
			}
		}
	}
	return p
}

// await waits for run as long as the request may (respond-async: not at
// all; wait=N: at most N seconds; else SyncWait, and never longer than
// SyncWait) and returns the job it ended with, or nil when the request
// must be answered 202 with planning still going on. It sets
// Preference-Applied for a preference it honoured.
func (s *Server) await(c *call, run *askonce.Run) (*askonce.Job, error) {
	p := parsePrefer(c.r.Header)
	wait := s.syncWait
	switch {
	case p.async:
		wait = 0
	case p.given && p.wait < wait:
		wait = p.wait
		c.header.Set("Preference-Applied", "wait="+strconv.Itoa(int(p.wait/time.Second)))
	}
	select {
	case <-run.Done():
		return run.Result()
	default:
	}
	if wait > 0 {
		ctx, cancel := context.WithTimeout(c.r.Context(), wait)
		defer cancel()
		if run.Wait(ctx) {
			return run.Result()
		}
	}
	if p.async {
		c.header.Set("Preference-Applied", "respond-async")
	}
	return nil, nil
}

// accepted renders the 202 of a job whose planning goes on: the job as it
// was committed, with Location naming where to follow it.
func (s *Server) accepted(c *call, j *askonce.Job) (int, api.JobView) {
	c.header.Set("Location", "/jobs/"+j.ID)
	return http.StatusAccepted, s.viewOf(j)
}
