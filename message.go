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
