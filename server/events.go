package server

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// eventPage is the most events one response (or one poll) carries.
const eventPage = 1000

// writeWindow is how long one write to an event stream may take; each
// write moves the connection's write deadline this far ahead.
const writeWindow = 30 * time.Second

// events serves GET /jobs/{id}/events: JSON, or a live stream for
// Accept: text/event-stream.
func (s *Server) events(w http.ResponseWriter, c *call) {
	r, id := c.r, c.r.PathValue("id")
	stream := acceptsEventStream(r)
	after, err := eventCursor(r, stream)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !stream {
		evs, err := s.engine.Events(r.Context(), c.tenant, id, after, eventPage)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if evs == nil {
			evs = []askonce.Event{}
		}
		b, err := encodeJSON(api.EventList{Events: evs})
		if err != nil {
			s.writeError(w, r, fmt.Errorf("encode events: %w", err))
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	// Before the stream starts, so that an unknown job is a JSON 404.
	if _, err := s.engine.Get(r.Context(), c.tenant, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.stream(w, c, id, after)
}

// eventCursor is the id after which to send events: Last-Event-ID (on a
// stream), else ?after=, else 0.
func eventCursor(r *http.Request, stream bool) (int64, error) {
	raw, name := r.URL.Query().Get("after"), "after"
	if last := r.Header.Get("Last-Event-ID"); stream && last != "" {
		raw, name = last, "Last-Event-ID"
	}
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest("%s %q is not an event id (a non-negative integer)", name, raw)
	}
	return n, nil
}

func acceptsEventStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}

// stream pushes the job's events as Server-Sent Events until the client
// leaves, the job is settled and every event was sent, StreamTimeout
// passes, or CloseStreams is called (see the package documentation).
func (s *Server) stream(w http.ResponseWriter, c *call, id string, after int64) {
	ctx := c.r.Context()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	write := func(b []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(writeWindow)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write([]byte("retry: 1000\n\n")) {
		return
	}

	// Woken when the job changes, in this process or (on PostgreSQL) any
	// other; the poll catches what a wake-up missed.
	changed, unwatch := s.engine.Watch(c.tenant, id)
	defer unwatch()
	deadline := time.NewTimer(s.streamTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(s.poll)
	defer poll.Stop()
	heartbeat := time.NewTicker(s.heartbeat)
	defer heartbeat.Stop()
	var buf bytes.Buffer
	for {
		// The job is read before its events: its state and the events
		// that led to it commit together, so a settled job read here
		// has all its events in the read that follows.
		j, err := s.engine.Get(ctx, c.tenant, id)
		if err != nil {
			s.streamError(c, err)
			return
		}
		settled := j.Status.Terminal() && !(s.awaitDelivery && j.Dispatch == askonce.DispatchQueued)
		evs, err := s.engine.Events(ctx, c.tenant, id, after, eventPage)
		if err != nil {
			s.streamError(c, err)
			return
		}
		if len(evs) > 0 {
			buf.Reset()
			for _, ev := range evs {
				data, err := encodeJSON(ev)
				if err != nil {
					s.streamError(c, fmt.Errorf("encode event %d: %w", ev.ID, err))
					return
				}
				fmt.Fprintf(&buf, "id: %d\nevent: %s\ndata: %s\n", ev.ID, ev.Type, data) // data ends in \n
				after = ev.ID
			}
			if !write(buf.Bytes()) {
				return
			}
			heartbeat.Reset(s.heartbeat)
		}
		if settled && len(evs) < eventPage {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-s.closing:
			return
		case <-heartbeat.C:
			if !write([]byte(": keep-alive\n\n")) {
				return
			}
		case <-poll.C:
		case <-changed:
		}
	}
}

// streamError logs why a stream ended early; a client that left is not an
// error. The status is already sent, so the client just sees the end.
func (s *Server) streamError(c *call, err error) {
	if c.r.Context().Err() == nil {
		c.info.err = err
	}
}
