package askonce

import "context"

// PutMessage records the message a channel sent about a job's question,
// unless one is recorded already, and returns the one stored (see
// MessageStore). A store that keeps no messages is EINVALID.
func (e *Engine) PutMessage(ctx context.Context, m Message) (Message, error) {
	ms, ok := e.Store.(MessageStore)
	if !ok {
		return Message{}, Errorf(EINVALID, "this store keeps no channel messages")
	}
	m.TenantID = tenantOr(m.TenantID)
	return ms.PutMessage(ctx, m)
}

// Message returns the message a channel sent about the job's question,
// or ENOTFOUND.
func (e *Engine) Message(ctx context.Context, tenant, jobID, channel string) (Message, error) {
	ms, ok := e.Store.(MessageStore)
	if !ok {
		return Message{}, Errorf(ENOTFOUND, "this store keeps no channel messages")
	}
	return ms.Message(ctx, tenantOr(tenant), jobID, channel)
}

// maxNotifyError caps the error a notify_failed event keeps.
const maxNotifyError = 1 << 10

type notificationData struct {
	Channel string `json:"channel"`
	Kind    string `json:"kind"`
	To      string `json:"to,omitempty"`
	Error   string `json:"error,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
}

// Notified appends n to the job's events (notified, or notify_failed
// with the error), if the store keeps such events; else it does nothing.
func (e *Engine) Notified(ctx context.Context, n Notification) error {
	ea, ok := e.Store.(EventAppender)
	if !ok {
		return nil
	}
	ev := Event{TenantID: tenantOr(n.TenantID), JobID: n.JobID, Type: EventNotified, At: e.now()}
	d := notificationData{Channel: n.Channel, Kind: n.Kind, To: n.To, Attempt: n.Attempt}
	switch {
	case n.Err != nil:
		ev.Type = EventNotifyFailed
		d.Error = capString(n.Err.Error(), maxNotifyError)
	case n.Skipped != "":
		ev.Type = EventNotifySkipped
		d.Reason = capString(n.Skipped, maxNotifyError)
	}
	ev.Data = eventData(d)
	return ea.AppendEvent(ctx, ev)
}
