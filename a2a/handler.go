package a2a

import (
	"context"
	"fmt"
	"iter"
	"time"

	"strconv"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/uuid"

	"github.com/askonce/askonce"
)

// handler implements the A2A 1.0 methods on the Engine: a task is a job.
// The SDK's a2av0 layer serves the same handler to A2A 0.3 clients.
type handler struct {
	cfg Config
	eng *askonce.Engine
}

var _ a2asrv.RequestHandler = (*handler)(nil)

// rpcError maps an engine error to its A2A error, in one place.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	msg := askonce.ErrorMessage(err)
	switch askonce.ErrorCode(err) {
	case askonce.EUNAVAILABLE:
		// Nothing the caller sent is wrong: the same request may succeed
		// shortly. A JSON-RPC server error (-32000), not an internal one.
		return fmt.Errorf("%w: unavailable: %s", sdk.ErrServerError, msg)
	case askonce.ENOTFOUND:
		return fmt.Errorf("%w: %s", sdk.ErrTaskNotFound, msg)
	case askonce.EINVALID:
		return fmt.Errorf("%w: %s", sdk.ErrInvalidParams, msg)
	case askonce.ECONFLICT:
		return fmt.Errorf("%w: %s", sdk.ErrInvalidRequest, msg)
	}
	return fmt.Errorf("%w: %s", sdk.ErrInternalError, msg)
}

// GetTask is the job as a task.
func (h *handler) GetTask(ctx context.Context, q *sdk.GetTaskRequest) (*sdk.Task, error) {
	j, err := h.eng.Get(ctx, tenantOf(ctx), string(q.ID))
	if err != nil {
		return nil, rpcError(err)
	}
	return h.taskOf(j, q.HistoryLength), nil
}

// CancelTask cancels the job; a task that has ended cannot be.
func (h *handler) CancelTask(ctx context.Context, p *sdk.CancelTaskRequest) (*sdk.Task, error) {
	j, _, err := h.eng.Act(context.WithoutCancel(ctx), askonce.Act{Do: askonce.ActCancel, TenantID: tenantOf(ctx), ID: string(p.ID)})
	if askonce.ErrorCode(err) == askonce.ECONFLICT {
		return nil, fmt.Errorf("%w: %s", sdk.ErrTaskNotCancelable, askonce.ErrorMessage(err))
	}
	if err != nil {
		return nil, rpcError(err)
	}
	return h.taskOf(j, nil), nil
}

// SendMessage: a message without a task id starts a job; one with a
// task id answers its question. Unless the caller asks to return
// immediately, the task is returned once planning has ended (or
// Config.Wait has passed).
func (h *handler) SendMessage(ctx context.Context, p *sdk.SendMessageRequest) (sdk.SendMessageResult, error) {
	j, run, err := h.send(ctx, p)
	if err != nil {
		return nil, err
	}
	if p.Config == nil || !p.Config.ReturnImmediately {
		j = h.await(ctx, j, run)
	}
	var n *int
	if p.Config != nil {
		n = p.Config.HistoryLength
	}
	return h.taskOf(j, n), nil
}

// send applies a message: it creates a job, or answers (or declines) the
// question of the task it names.
func (h *handler) send(ctx context.Context, p *sdk.SendMessageRequest) (*askonce.Job, *askonce.Run, error) {
	m := p.Message
	if m == nil {
		return nil, nil, fmt.Errorf("%w: message is required", sdk.ErrInvalidParams)
	}
	caller := callerOf(ctx)
	tenant := caller.Tenant
	// A job's life does not depend on the request that started it.
	wctx := context.WithoutCancel(ctx)
	if m.TaskID == "" {
		req, err := createRequest(tenant, m)
		if err != nil {
			return nil, nil, err
		}
		if err := caller.AllowRecipients(req.Notify); err != nil {
			return nil, nil, rpcError(err)
		}
		pc := pushConfigIn(p)
		if pc != nil {
			// Stored before the job, so that the job's first change (a
			// question asked at once) finds it.
			req.ID = uuid.Must(uuid.NewV7()).String()
			if _, err := h.putPushConfig(wctx, req.ID, pc); err != nil {
				return nil, nil, err
			}
		}
		j, run, err := h.eng.Start(wctx, req)
		if err != nil && pc != nil {
			if derr := h.eng.DeletePushConfig(wctx, askonce.PushConfigKey{TenantID: tenant, JobID: req.ID, ID: pc.ID}); derr != nil && askonce.ErrorCode(derr) != askonce.ENOTFOUND {
				h.cfg.Logger.Warn("a2a: drop the push config of a task not created", "task", req.ID, "err", derr)
			}
		}
		return j, run, rpcError(err)
	}
	j, err := h.eng.Get(ctx, tenant, string(m.TaskID))
	if err != nil {
		return nil, nil, rpcError(err)
	}
	if m.ContextID != "" && m.ContextID != j.SessionID {
		return nil, nil, fmt.Errorf("%w: task %s belongs to context %s, not %s", sdk.ErrInvalidParams, j.ID, j.SessionID, m.ContextID)
	}
	if j.Mode != askonce.ModeManaged {
		return nil, nil, fmt.Errorf("%w: task %s is a gate-mode job, reported over the HTTP API (POST /jobs/%s/report)", sdk.ErrUnsupportedOperation, j.ID, j.ID)
	}
	if j.Status != askonce.StatusPending {
		return nil, nil, fmt.Errorf("%w: task %s is %s, not input-required: only its one question takes a message", sdk.ErrInvalidRequest, j.ID, stateOf(j.Status))
	}
	if pc := pushConfigIn(p); pc != nil {
		if _, err := h.putPushConfig(wctx, j.ID, pc); err != nil {
			return nil, nil, err
		}
	}
	// The job as read is the act's target: it is not read again. An
	// answer the question does not take is an error naming the allowed
	// answers; the task stays input-required.
	act := askonce.Act{Do: askonce.ActAnswer, Job: j, Background: true}
	if r := replyOf(m, j.Question); r.decline {
		act.Do = askonce.ActDecline
	} else {
		act.Answer, act.DontRemember = r.answer, r.dontRemember
	}
	j, run, err := h.eng.Act(askonce.WithAnswerer(wctx, askonce.Answerer{Via: askonce.ViaA2A, By: caller.Name}), act)
	if err != nil {
		return nil, nil, rpcError(err)
	}
	return j, run, nil
}

// pushConfigIn is the push config a message's configuration carries,
// with an id (the caller's, or a new one), or nil.
func pushConfigIn(p *sdk.SendMessageRequest) *sdk.PushConfig {
	if p.Config == nil || p.Config.PushConfig == nil {
		return nil
	}
	pc := *p.Config.PushConfig
	if pc.ID == "" {
		pc.ID = uuid.NewString()
	}
	return &pc
}

// await returns the run's outcome, or the job as stored when Config.Wait
// or ctx ends first.
func (h *handler) await(ctx context.Context, j *askonce.Job, run *askonce.Run) *askonce.Job {
	if run == nil {
		return j
	}
	wctx, cancel := context.WithTimeout(ctx, h.cfg.Wait)
	defer cancel()
	if run.Wait(wctx) {
		if out, err := run.Result(); err == nil && out != nil {
			return out
		}
	}
	if cur, err := h.eng.Get(context.WithoutCancel(ctx), j.TenantID, j.ID); err == nil {
		return cur
	}
	return j
}

// SendStreamingMessage: the task as the message left it, then a status
// update per job event until the task is input-required or has ended.
func (h *handler) SendStreamingMessage(ctx context.Context, p *sdk.SendMessageRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		var after int64
		if p.Message != nil && p.Message.TaskID != "" {
			// Only what this message causes: events from here on.
			last, err := h.lastEvent(ctx, string(p.Message.TaskID))
			if err != nil {
				yield(nil, err)
				return
			}
			after = last
		}
		j, _, err := h.send(ctx, p)
		if err != nil {
			yield(nil, err)
			return
		}
		if settled(j) {
			// Already settled (a question answered from history): the
			// updates would tell what the task already says.
			if after, err = h.lastEvent(ctx, j.ID); err != nil {
				yield(nil, err)
				return
			}
		}
		if !yield(h.taskOf(j, nil), nil) {
			return
		}
		h.follow(ctx, j, after, yield)
	}
}

// SubscribeToTask: the task now, then its updates as on
// SendStreamingMessage, until it settles.
func (h *handler) SubscribeToTask(ctx context.Context, p *sdk.SubscribeToTaskRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		after, err := h.lastEvent(ctx, string(p.ID))
		if err != nil {
			yield(nil, err)
			return
		}
		j, err := h.eng.Get(ctx, tenantOf(ctx), string(p.ID))
		if err != nil {
			yield(nil, rpcError(err))
			return
		}
		if j.Status.Terminal() {
			yield(nil, fmt.Errorf("%w: task %s has ended (%s): get it with GetTask", sdk.ErrUnsupportedOperation, j.ID, stateOf(j.Status)))
			return
		}
		if !yield(h.taskOf(j, nil), nil) {
			return
		}
		h.follow(ctx, j, after, yield)
	}
}

// eventPage is the most events read per poll.
const eventPage = 1000

// lastEvent is the id of the job's newest event.
func (h *handler) lastEvent(ctx context.Context, id string) (int64, error) {
	var last int64
	for {
		evs, err := h.eng.Events(ctx, tenantOf(ctx), id, last, eventPage)
		if err != nil {
			return 0, rpcError(err)
		}
		if len(evs) == 0 {
			return last, nil
		}
		last = evs[len(evs)-1].ID
		if len(evs) < eventPage {
			return last, nil
		}
	}
}

// follow sends the job's events after the given one as working status
// updates, until the job settles (input-required or ended): then its plan
// artifact, if any, and the final status. The job is read before its
// events, so a settled job read has all its events in the read that
// follows.
func (h *handler) follow(ctx context.Context, j *askonce.Job, after int64, yield func(sdk.Event, error) bool) {
	tenant := tenantOf(ctx)
	deadline := time.NewTimer(h.cfg.StreamTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(h.cfg.PollInterval)
	defer poll.Stop()
	// A store that can tell wakes the stream when the job changes, on
	// this replica or another; the poll stays as the fallback.
	changed, unwatch := h.eng.Watch(tenant, j.ID)
	defer unwatch()
	for {
		cur, err := h.eng.Get(ctx, tenant, j.ID)
		if err != nil {
			yield(nil, rpcError(err))
			return
		}
		evs, err := h.eng.Events(ctx, tenant, j.ID, after, eventPage)
		if err != nil {
			yield(nil, rpcError(err))
			return
		}
		for _, ev := range evs {
			after = ev.ID
			text := eventText(ev.Type)
			if text == "" {
				continue
			}
			up := sdk.NewStatusUpdateEvent(&sdk.Task{ID: sdk.TaskID(j.ID), ContextID: j.SessionID}, sdk.TaskStateWorking,
				&sdk.Message{ID: fmt.Sprintf("%s-event-%d", j.ID, ev.ID), Role: sdk.MessageRoleAgent, TaskID: sdk.TaskID(j.ID), ContextID: j.SessionID, Parts: sdk.ContentParts{sdk.NewTextPart(text)}})
			at := ev.At
			up.Status.Timestamp = &at
			up.Metadata = map[string]any{"askonce": map[string]any{"event": string(ev.Type), "eventId": ev.ID}}
			if !yield(up, nil) {
				return
			}
		}
		if settled(cur) && len(evs) < eventPage {
			if a := planArtifact(cur); a != nil {
				if !yield(&sdk.TaskArtifactUpdateEvent{TaskID: sdk.TaskID(cur.ID), ContextID: cur.SessionID, Artifact: a, LastChunk: true}, nil) {
					return
				}
			}
			yield(&sdk.TaskStatusUpdateEvent{TaskID: sdk.TaskID(cur.ID), ContextID: cur.SessionID, Status: h.statusOf(cur)}, nil)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-changed:
		case <-poll.C:
		}
	}
}

// settled reports whether a job waits for no planning: it asks, or has
// ended.
func settled(j *askonce.Job) bool {
	return j.Status == askonce.StatusPending || j.Status.Terminal()
}

// GetExtendedAgentCard: the public card is the whole card.
func (h *handler) GetExtendedAgentCard(context.Context, *sdk.GetExtendedAgentCardRequest) (*sdk.AgentCard, error) {
	return nil, sdk.ErrExtendedCardNotConfigured
}

// ListTasks lists the caller's tasks, newest first, by context and state.
// A state several job statuses show as (failed) is listed one status
// after the other: its page token names the status and the store's
// cursor in it.
func (h *handler) ListTasks(ctx context.Context, req *sdk.ListTasksRequest) (*sdk.ListTasksResponse, error) {
	statuses := []askonce.Status{""}
	switch {
	case req.Status == sdk.TaskStateUnspecified || req.Status == unrecognized:
	case !knownState(req.Status):
		return nil, fmt.Errorf("%w: status %q is not a task state", sdk.ErrInvalidParams, req.Status)
	default:
		if statuses = statusesOf(req.Status); statuses == nil {
			// A state no job is ever in (submitted, rejected, auth-required).
			return &sdk.ListTasksResponse{Tasks: []*sdk.Task{}}, nil
		}
	}
	if req.PageSize < 0 || req.PageSize > maxPageSize {
		return nil, fmt.Errorf("%w: pageSize %d is not between 1 and %d", sdk.ErrInvalidParams, req.PageSize, maxPageSize)
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return nil, fmt.Errorf("%w: historyLength %d is negative", sdk.ErrInvalidParams, *req.HistoryLength)
	}
	at, cursor, err := pageToken(req.PageToken, len(statuses))
	if err != nil {
		return nil, err
	}
	size := req.PageSize
	if size == 0 {
		size = defaultPageSize
	}
	tenant := tenantOf(ctx)
	page, err := h.eng.List(ctx, tenant, askonce.JobFilter{Status: statuses[at], SessionID: req.ContextID, Cursor: cursor, Limit: size})
	if err != nil {
		return nil, rpcError(err)
	}
	out := &sdk.ListTasksResponse{Tasks: make([]*sdk.Task, 0, len(page.Jobs)), PageSize: size}
	for _, j := range page.Jobs {
		if req.StatusTimestampAfter != nil && !j.UpdatedAt.After(*req.StatusTimestampAfter) {
			continue
		}
		t := h.taskOf(j, req.HistoryLength)
		if !req.IncludeArtifacts {
			t.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, t)
	}
	switch {
	case page.NextCursor != "":
		out.NextPageToken = strconv.Itoa(at) + ":" + page.NextCursor
	case at+1 < len(statuses):
		out.NextPageToken = strconv.Itoa(at+1) + ":"
	}
	if out.TotalSize, err = h.count(ctx, tenant, req, statuses); err != nil {
		return nil, err
	}
	return out, nil
}

// unrecognized is the status @a2a-js/sdk 1.3.0 sends for a ListTasks
// without one (its proto enum's unknown value): no filter.
const unrecognized sdk.TaskState = "UNRECOGNIZED"

// knownState reports whether s is one of A2A 1.0's task states.
func knownState(s sdk.TaskState) bool {
	switch s {
	case sdk.TaskStateSubmitted, sdk.TaskStateWorking, sdk.TaskStateInputRequired, sdk.TaskStateAuthRequired,
		sdk.TaskStateCompleted, sdk.TaskStateCanceled, sdk.TaskStateFailed, sdk.TaskStateRejected:
		return true
	}
	return false
}

// Page sizes of ListTasks.
const (
	defaultPageSize = 50
	maxPageSize     = 100
)

// pageToken reads a ListTasks page token: which of n statuses, and the
// store's cursor in it.
func pageToken(tok string, n int) (int, string, error) {
	if tok == "" {
		return 0, "", nil
	}
	i, cursor, _ := strings.Cut(tok, ":")
	at, err := strconv.Atoi(i)
	if err != nil || at < 0 || at >= n {
		return 0, "", fmt.Errorf("%w: pageToken %q is not one this endpoint gave for this filter", sdk.ErrInvalidParams, tok)
	}
	return at, cursor, nil
}

// count is how many tasks match req's filter, for ListTasks' totalSize.
// The store counts nothing, so this reads them all, a page at a time.
func (h *handler) count(ctx context.Context, tenant string, req *sdk.ListTasksRequest, statuses []askonce.Status) (int, error) {
	n := 0
	for _, s := range statuses {
		f := askonce.JobFilter{Status: s, SessionID: req.ContextID, Limit: 500}
		for {
			page, err := h.eng.List(ctx, tenant, f)
			if err != nil {
				return 0, rpcError(err)
			}
			for _, j := range page.Jobs {
				if req.StatusTimestampAfter == nil || j.UpdatedAt.After(*req.StatusTimestampAfter) {
					n++
				}
			}
			if page.NextCursor == "" {
				break
			}
			f.Cursor = page.NextCursor
		}
	}
	return n, nil
}
