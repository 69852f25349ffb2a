package slack

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
)

// A try that dies after Slack took its message and before the ts was
// stored leaves a message no one knows of. Every try records when it
// began posting (a "try" record, numbered from 1) before it posts, and
// the message carries the job in its metadata; the next try looks for it
// in the conversation's history, around the time the last try began,
// and adopts it instead of posting again. Only the last try needs a
// look: the one before it looked for the one before that, and found
// nothing, before it began.

const (
	// metadataEvent is the event_type of the question message's
	// metadata; its payload names the job (tenant_id, job_id).
	metadataEvent = "askonce_question"

	// postTimeout bounds one chat.postMessage: a message Slack took is
	// in the history no later than that after its try began.
	postTimeout = 30 * time.Second
	// clockSlack widens the window looked at for the difference between
	// this machine's clock and Slack's.
	clockSlack = 2 * time.Minute
	// findPage is how many messages one conversations.history call asks
	// for, and findPages how many calls one look makes at most.
	findPage  = 100
	findPages = 20
)

// tryRecord names the stored record of the n-th try to post.
func tryRecord(n int) string { return msgQuestion + "-try:" + strconv.Itoa(n) }

// try is a recorded try to post: its number and when it began.
type try struct {
	n  int
	at time.Time
}

// lastTry returns the job's last recorded try to post; n is 0 when no
// try began posting.
func (c *Channel) lastTry(ctx context.Context, j *askonce.Job) (try, error) {
	var last try
	for {
		m, err := c.cfg.Engine.Message(ctx, j.TenantID, j.ID, tryRecord(last.n+1))
		if askonce.ErrorCode(err) == askonce.ENOTFOUND {
			return last, nil
		}
		if err != nil {
			return try{}, err
		}
		at, err := time.Parse(time.RFC3339Nano, m.Ref)
		if err != nil {
			return try{}, fmt.Errorf("try %d of the slack post of job %s: %w", last.n+1, j.ID, err)
		}
		last = try{last.n + 1, at}
	}
}

// startTry records that the n-th try to post begins now.
func (c *Channel) startTry(ctx context.Context, j *askonce.Job, n int) error {
	_, err := c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID,
		Channel: tryRecord(n), Ref: time.Now().UTC().Format(time.RFC3339Nano)})
	return err
}

// questionMetadata is the question message's metadata: what find looks
// for.
func questionMetadata(j *askonce.Job) slackapi.SlackMetadata {
	return slackapi.SlackMetadata{EventType: metadataEvent,
		EventPayload: map[string]any{"tenant_id": j.TenantID, "job_id": j.ID}}
}

// find looks for the question message of j that a try begun at at may
// have posted: in the conversation's history from a little before at to
// a little after its post had to end, the message whose metadata names
// j. For a direct message the conversation is the one
// conversations.open gives.
func (c *Channel) find(ctx context.Context, j *askonce.Job, at time.Time) (ref, bool, error) {
	conv := j.Notify.Slack.Channel
	if conv == "" {
		ch, _, _, err := c.api.OpenConversationContext(ctx, &slackapi.OpenConversationParameters{Users: []string{j.Notify.Slack.User}})
		if err != nil {
			return ref{}, false, fmt.Errorf("open the direct message with %s: %w", j.Notify.Slack.User, err)
		}
		conv = ch.ID
	}
	p := &slackapi.GetConversationHistoryParameters{ChannelID: conv, Inclusive: true, Limit: findPage, IncludeAllMetadata: true,
		Oldest: slackTS(at.Add(-clockSlack)), Latest: slackTS(at.Add(postTimeout + clockSlack))}
	for range findPages {
		h, err := c.api.GetConversationHistoryContext(ctx, p)
		if err != nil {
			return ref{}, false, fmt.Errorf("look for the message in %s: %w", conv, err)
		}
		for _, m := range h.Messages {
			if m.Metadata.EventType == metadataEvent && m.Metadata.EventPayload["tenant_id"] == j.TenantID && m.Metadata.EventPayload["job_id"] == j.ID {
				return ref{conv, m.Timestamp}, true, nil
			}
		}
		if !h.HasMore || h.ResponseMetaData.NextCursor == "" {
			return ref{}, false, nil
		}
		p.Cursor = h.ResponseMetaData.NextCursor
	}
	return ref{}, false, fmt.Errorf("look for the message in %s: more than %d messages around %s", conv, findPage*findPages, at.Format(time.RFC3339))
}

// slackTS is t as a Slack timestamp, the bound of a history query.
func slackTS(t time.Time) string {
	return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)
}

// cannotRead reports whether err says the app may not read the
// conversation's history (a missing scope, not a member), which no retry
// mends.
func cannotRead(err error) bool {
	var se slackapi.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "missing_scope" || se.Err == "not_in_channel")
}
