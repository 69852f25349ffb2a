package a2a

import (
	"context"
	"fmt"
	"iter"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/askonce/askonce"
)

// handler implements the A2A methods on the Engine: a task is a job.
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
	case askonce.ENOTFOUND:
		return fmt.Errorf("%w: %s", sdk.ErrTaskNotFound, msg)
	case askonce.EINVALID:
		return fmt.Errorf("%w: %s", sdk.ErrInvalidParams, msg)
	case askonce.ECONFLICT:
		return fmt.Errorf("%w: %s", sdk.ErrInvalidRequest, msg)
	}
	return fmt.Errorf("%w: %s", sdk.ErrInternalError, msg)
}

// OnGetTask is tasks/get: the job as a task.
func (h *handler) OnGetTask(ctx context.Context, q *sdk.TaskQueryParams) (*sdk.Task, error) {
	j, err := h.eng.Get(ctx, tenantOf(ctx), string(q.ID))
	if err != nil {
		return nil, rpcError(err)
	}
	return h.taskOf(j, q.HistoryLength), nil
}

// OnCancelTask is tasks/cancel: the job is cancelled; a task that has
// ended cannot be.
func (h *handler) OnCancelTask(ctx context.Context, p *sdk.TaskIDParams) (*sdk.Task, error) {
	j, err := h.eng.Cancel(context.WithoutCancel(ctx), tenantOf(ctx), string(p.ID))
	if askonce.ErrorCode(err) == askonce.ECONFLICT {
		return nil, fmt.Errorf("%w: %s", sdk.ErrTaskNotCancelable, askonce.ErrorMessage(err))
	}
	if err != nil {
		return nil, rpcError(err)
	}
	return h.taskOf(j, nil), nil
}

// OnSendMessage is message/send: a message without a task id starts a
// job; one with a task id answers its question. Unless the caller asks
// for blocking false, the task is returned once planning has ended (or
// Config.Wait has passed).
func (h *handler) OnSendMessage(ctx context.Context, p *sdk.MessageSendParams) (sdk.SendMessageResult, error) {
	j, run, err := h.send(ctx, p)
	if err != nil {
		return nil, err
	}
	if p.Config == nil || p.Config.Blocking == nil || *p.Config.Blocking {
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
func (h *handler) send(ctx context.Context, p *sdk.MessageSendParams) (*askonce.Job, *askonce.Run, error) {
	m := p.Message
	if m == nil {
		return nil, nil, fmt.Errorf("%w: message is required", sdk.ErrInvalidParams)
	}
	tenant := tenantOf(ctx)
	// A job's life does not depend on the request that started it.
	wctx := context.WithoutCancel(ctx)
	if m.TaskID == "" {
		req, err := createRequest(tenant, m)
		if err != nil {
			return nil, nil, err
		}
		j, run, err := h.eng.Start(wctx, req)
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
	var run *askonce.Run
	if r := replyOf(m); r.decline {
		j, run, err = h.eng.StartDecline(askonce.WithAnswerer(wctx, askonce.Answerer{Via: askonce.ViaA2A}), tenant, j.ID)
	} else {
		// An answer the question does not take is an error naming the
		// allowed answers; the task stays input-required.
		j, run, err = h.eng.StartAnswer(askonce.WithAnswerer(wctx, askonce.Answerer{Via: askonce.ViaA2A}), tenant, j.ID, r.answer)
	}
	if err != nil {
		return nil, nil, rpcError(err)
	}
	return j, run, nil
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

// OnSendMessageStream is message/stream: the task as the message left it,
// then a status update per job event until the task is input-required or
// has ended.
func (h *handler) OnSendMessageStream(ctx context.Context, p *sdk.MessageSendParams) iter.Seq2[sdk.Event, error] {
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
		if !yield(h.taskOf(j, nil), nil) {
			return
		}
		h.follow(ctx, j, after, yield)
	}
}

// OnResubscribeToTask is tasks/resubscribe: the task now, then its updates
// as on message/stream.
func (h *handler) OnResubscribeToTask(ctx context.Context, p *sdk.TaskIDParams) iter.Seq2[sdk.Event, error] {
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
				&sdk.Message{ID: fmt.Sprintf("%s-event-%d", j.ID, ev.ID), Role: sdk.MessageRoleAgent, TaskID: sdk.TaskID(j.ID), ContextID: j.SessionID, Parts: sdk.ContentParts{sdk.TextPart{Text: text}}})
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
			yield(&sdk.TaskStatusUpdateEvent{TaskID: sdk.TaskID(cur.ID), ContextID: cur.SessionID, Status: h.statusOf(cur), Final: true}, nil)
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

// Push notifications are not offered: the card says so, and a caller
// that streams or polls needs none.

func (h *handler) OnGetTaskPushConfig(context.Context, *sdk.GetTaskPushConfigParams) (*sdk.TaskPushConfig, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h *handler) OnListTaskPushConfig(context.Context, *sdk.ListTaskPushConfigParams) ([]*sdk.TaskPushConfig, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h *handler) OnSetTaskPushConfig(context.Context, *sdk.TaskPushConfig) (*sdk.TaskPushConfig, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h *handler) OnDeleteTaskPushConfig(context.Context, *sdk.DeleteTaskPushConfigParams) error {
	return sdk.ErrPushNotificationNotSupported
}

// OnGetExtendedAgentCard: the public card is the whole card.
func (h *handler) OnGetExtendedAgentCard(context.Context) (*sdk.AgentCard, error) {
	return nil, sdk.ErrAuthenticatedExtendedCardNotConfigured
}
