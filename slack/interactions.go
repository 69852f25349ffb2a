package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
)

// InteractionsPath is where Slack sends the app's interactions (the
// Interactivity Request URL is the server's public URL + this path).
const InteractionsPath = "/slack/interactions"

// maxInteraction bounds an interaction's body; Slack's are a few KiB.
const maxInteraction = 1 << 20

// answerTimeout bounds the work a click starts after it was
// acknowledged.
const answerTimeout = 30 * time.Second

// Handler serves POST /slack/interactions: it verifies the request's
// X-Slack-Signature (v0, HMAC-SHA256 of "v0:<timestamp>:<raw body>" under
// the signing secret) and refuses a timestamp more than 5 minutes away
// with 401, before reading anything else. A click is acknowledged at once
// (Slack wants an answer within 3 seconds) and answered through the
// Engine after; a modal's answer is answered before the response, so
// that an invalid one shows its error in the modal.
func (c *Channel) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInteraction))
		if err != nil {
			http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		if err := c.verify(r.Header, body); err != nil {
			c.log.WarnContext(r.Context(), "slack: interaction refused", "err", err)
			http.Error(w, "the request is not signed by Slack, or its timestamp is more than 5 minutes away", http.StatusUnauthorized)
			return
		}
		form, err := url.ParseQuery(string(body))
		var cb slackapi.InteractionCallback
		if err == nil {
			err = json.Unmarshal([]byte(form.Get("payload")), &cb)
		}
		if err != nil {
			http.Error(w, "payload is not an interaction", http.StatusBadRequest)
			return
		}
		switch cb.Type {
		case slackapi.InteractionTypeBlockActions:
			w.WriteHeader(http.StatusOK)
			go c.act(context.WithoutCancel(r.Context()), cb)
		case slackapi.InteractionTypeViewSubmission:
			c.submit(w, r.Context(), cb)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
}

func (c *Channel) verify(h http.Header, body []byte) error {
	v, err := slackapi.NewSecretsVerifier(h, c.cfg.SigningSecret)
	if err != nil {
		return err
	}
	if _, err := v.Write(body); err != nil {
		return err
	}
	return v.Ensure()
}

// act carries out a click on the question message.
func (c *Channel) act(ctx context.Context, cb slackapi.InteractionCallback) {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	if len(cb.ActionCallback.BlockActions) == 0 {
		return
	}
	a := cb.ActionCallback.BlockActions[0]
	tenant, id, ok := parseJobRef(a.BlockID)
	if !ok || a.ActionID == actionLink {
		return // the link, or the remember checkbox ticked on its own
	}
	var noRemember bool
	if st := cb.BlockActionState; st != nil {
		noRemember = dontRemember(st.Values)
	}
	e := c.cfg.Engine
	ctx = askonce.WithAnswerer(ctx, askonce.Answerer{Via: askonce.ViaSlack, By: cb.User.ID})
	j, err := e.Get(ctx, tenant, id)
	if err != nil {
		c.log.WarnContext(ctx, "slack: interaction on an unknown job", "job", id, "err", err)
		return
	}
	if !c.mayAnswer(ctx, cb, j) {
		return
	}
	switch {
	case a.ActionID == actionModal:
		if j.Status != askonce.StatusPending || j.Question == nil {
			c.already(ctx, cb, j)
			return
		}
		if _, err := c.api.OpenViewContext(ctx, cb.TriggerID, modal(j, noRemember)); err != nil {
			c.log.WarnContext(ctx, "slack: open the answer modal", "job", id, "err", err)
		}
		return
	case a.ActionID == actionDecline:
		j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActDecline, Job: j, Background: true})
	case a.ActionID == actionCancel:
		j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Job: j})
	default: // a button or the select: an option by its index
		v := a.Value
		if a.ActionID == actionSelect {
			v = a.SelectedOption.Value
		}
		if j.Question == nil {
			c.already(ctx, cb, j)
			return
		}
		i, ok := optionIndex(v, len(j.Question.Options))
		if !ok {
			c.log.WarnContext(ctx, "slack: click with an unknown option", "job", id, "value", v)
			return
		}
		j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Answer: askonce.AnswerOf(askonce.OptionValue(j.Question.Options[i])), DontRemember: noRemember, Job: j, Background: true})
	}
	c.answered(ctx, cb, tenant, id, j, err)
}

// answered updates the message at once, or, when the job was settled
// already, tells the clicker so.
func (c *Channel) answered(ctx context.Context, cb slackapi.InteractionCallback, tenant, id string, j *askonce.Job, err error) {
	if err != nil {
		var ae *askonce.Error
		if askonce.ErrorCode(err) == askonce.ECONFLICT && errors.As(err, &ae) && ae.Job != nil {
			c.already(ctx, cb, ae.Job)
			return
		}
		c.log.WarnContext(ctx, "slack: answer from Slack", "job", id, "err", err)
		c.ephemeral(ctx, cb, "askonce could not take that: "+Escape(askonce.ErrorMessage(err)))
		return
	}
	_ = c.updateAll(ctx, j, 0)
}

// already tells the clicker, and only them, that the question is
// settled, and changes nothing.
func (c *Channel) already(ctx context.Context, cb slackapi.InteractionCallback, j *askonce.Job) {
	c.ephemeral(ctx, cb, "Already settled: "+Settled(j))
}

func (c *Channel) ephemeral(ctx context.Context, cb slackapi.InteractionCallback, text string) {
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	if channel == "" || cb.User.ID == "" {
		return
	}
	_, err := c.api.PostEphemeralContext(ctx, channel, cb.User.ID, slackapi.MsgOptionText(text, false))
	_ = c.sent(ctx, "ephemeral", nil, 0, err)
}

// submit answers with the modal's input. The response closes the modal,
// or keeps it open with the error under the input.
func (c *Channel) submit(w http.ResponseWriter, ctx context.Context, cb slackapi.InteractionCallback) {
	tenant, id, ok := parseJobRef(cb.View.PrivateMetadata)
	if !ok || cb.View.CallbackID != modalCallback || cb.View.State == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	e := c.cfg.Engine
	_, hasFields := cb.View.State.Values[fieldBlock(0)]
	// refuse keeps the modal open with msg under its (first) input.
	refuse := func(w http.ResponseWriter, msg string) { modalError(w, inputBlock, msg) }
	if hasFields {
		refuse = func(w http.ResponseWriter, msg string) {
			modalErrors(w, map[string]string{fieldBlock(0): clip(msg, 2000)})
		}
	}
	// The job is read for its question, which the inputs are read
	// against, and answered as read.
	held, err := e.Get(ctx, tenant, id)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		refuse(w, "askonce no longer has this question (its job was removed), so there is nothing to answer.")
		return
	}
	if err != nil || held.Question == nil || hasFields != (len(held.Question.Fields) > 0) {
		refuse(w, "This question is gone.")
		return
	}
	var fields *askonce.Question
	var answer askonce.Answer
	if hasFields {
		var bad map[string]string
		if answer, bad = fieldsAnswer(held.Question, cb.View.State.Values); bad != nil {
			modalErrors(w, bad)
			return
		}
		fields = held.Question
	} else {
		v, err := inputValue(held.Question, cb.View.State.Values[inputBlock][inputAction], slackapi.BlockAction{})
		if err != nil {
			refuse(w, "Choose one of the options.")
			return
		}
		answer = askonce.AnswerOf(v)
	}
	checked := held
	if checked == nil {
		checked, _ = e.Get(ctx, tenant, id)
	}
	if who := (askonce.Answerer{Via: askonce.ViaSlack, By: cb.User.ID}); checked != nil && !checked.Notify.MayAnswer(who) {
		if err := e.RefuseAnswer(ctx, checked, who); err != nil {
			c.log.WarnContext(ctx, "slack: record a refused answer", "job", id, "err", err)
		}
		refuse(w, "Sorry, this question is for other people to answer; your answer was not taken and the question still waits.")
		return
	}
	actx := askonce.WithAnswerer(context.WithoutCancel(ctx), askonce.Answerer{Via: askonce.ViaSlack, By: cb.User.ID})
	j, _, err := e.Act(actx, askonce.Act{Do: askonce.ActAnswer, Answer: answer, DontRemember: dontRemember(cb.View.State.Values), Job: held, Background: true})
	var ae *askonce.Error
	switch {
	case err == nil:
		w.WriteHeader(http.StatusOK)
		go c.answered(context.WithoutCancel(ctx), cb, tenant, id, j, nil)
	case askonce.ErrorCode(err) == askonce.ECONFLICT && errors.As(err, &ae) && ae.Job != nil:
		refuse(w, "Already settled: "+Settled(ae.Job))
	case askonce.ErrorCode(err) == askonce.EINVALID && fields != nil:
		modalErrors(w, fieldErrors(fields, err))
	case askonce.ErrorCode(err) == askonce.EINVALID:
		refuse(w, askonce.ErrorMessage(err))
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		refuse(w, "askonce no longer has this question (its job was removed), so there is nothing to answer.")
	default:
		c.log.WarnContext(ctx, "slack: modal answer", "job", id, "err", err)
		refuse(w, "askonce could not take the answer; try again.")
	}
}

// modalError keeps the modal open with msg under the input of block.
func modalError(w http.ResponseWriter, block, msg string) {
	modalErrors(w, map[string]string{block: clip(msg, 2000)})
}

// modalErrors keeps the modal open with each message under the input of
// its block.
func modalErrors(w http.ResponseWriter, errs map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"response_action": "errors",
		"errors":          errs,
	})
}
