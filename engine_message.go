package askonce

import "context"

// Message is what a channel (slack, email) sent about a job's question:
// Ref is the channel's own reference to it (the Slack channel and ts, the
// email Message-ID), for the edit or the reply once the job settles.
type Message struct {
	TenantID string
	JobID    string
	// Channel names the channel: "slack", "email".
	Channel string
	Ref     string
}

// MessageStore is implemented by stores that keep Messages (sqlite and
// postgres do). Channels reach it through the Engine.
type MessageStore interface {
	// PutMessage records m unless the job has a message on m.Channel
	// already, and returns the one stored: m, or the earlier one. Of
	// two racing callers one wins; both get the winner's.
	PutMessage(ctx context.Context, m Message) (Message, error)
	// Message returns the job's message on channel, or ENOTFOUND.
	Message(ctx context.Context, tenant, jobID, channel string) (Message, error)
}

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

// EventAppender is implemented by stores that append an event to a job
// without changing the job (sqlite and postgres do): the channels' record
// of what they sent.
type EventAppender interface {
	AppendEvent(ctx context.Context, ev Event) error
}

// Notification is one send of a channel that reaches people, for the
// job's events: notified when it went out, notify_failed when it did not
// (it is retried).
type Notification struct {
	TenantID string
	JobID    string
	// Channel is "slack" or "email"; Kind what was sent ("post",
	// "update", "outcome", "question"), or "find": Slack's look for the
	// message of a try that died.
	Channel, Kind string
	// To is the recipient, when the channel has several.
	To string
	// Err is the send's error; nil when it went out.
	Err error
	// Attempt counts the tries of this send, from 1.
	Attempt int
}

// maxNotifyError caps the error a notify_failed event keeps.
const maxNotifyError = 1 << 10

type notificationData struct {
	Channel string `json:"channel"`
	Kind    string `json:"kind"`
	To      string `json:"to,omitempty"`
	Error   string `json:"error,omitempty"`
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
	if n.Err != nil {
		ev.Type = EventNotifyFailed
		d.Error = capString(n.Err.Error(), maxNotifyError)
	}
	ev.Data = eventData(d)
	return ea.AppendEvent(ctx, ev)
}
