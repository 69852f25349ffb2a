package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// A pending question's reach, as the inbox and the job page show it:
// who it was sent to when it was asked, and each step of the job's reach
// policy with its time, run or due. A pending job does not change until
// it stops pending, so its UpdatedAt is when it asked.

// reachRow is one line of a question's reach.
type reachRow struct {
	// What is "asked", "reminder" or "escalation".
	What string
	// Who names the recipients.
	Who string
	At  time.Time
	// Due reports that At is still to come.
	Due bool
}

// reachRows returns the reach of j's question at now: the ask, then each
// step that runs before the question expires.
func reachRows(j *askonce.Job, now time.Time) []reachRow {
	if j == nil || j.Notify == nil || j.Question == nil {
		return nil
	}
	asked := j.UpdatedAt
	if j.Status != askonce.StatusPending {
		return nil
	}
	rows := []reachRow{{What: "asked", Who: reachWho(j.Notify.Reached(0)), At: asked}}
	for i, s := range j.Notify.Steps {
		at, ok := s.At(asked, j.Question.ExpiresAt)
		if !ok {
			continue
		}
		remind, escalate := j.Notify.Step(i + 1)
		row := reachRow{What: "reminder", Who: reachWho(remind), At: at, Due: at.After(now)}
		if !escalate.Empty() {
			row.What, row.Who = "escalation", reachWho(escalate)
			if !remind.Empty() {
				row.Who += "; reminds " + reachWho(remind)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// reachWho names r's recipients: "Slack C0123ABCD, ann@example.com".
func reachWho(r askonce.Reach) string {
	var names []string
	for _, s := range r.Slack {
		names = append(names, "Slack "+s.Conversation())
	}
	names = append(names, r.Email...)
	if len(names) == 0 {
		return "no one"
	}
	return strings.Join(names, ", ")
}

// reachEvent is an event of a reach policy on the job page.
type reachEvent struct {
	Event askonce.Event
	Data  askonce.ReachData
	// Failed holds a reach_failed event's channel, recipient and error.
	Failed struct {
		Channel, To, Error string
		Step               int
	}
}

// reachEvents picks the reminded, escalated and reach_failed events.
func reachEvents(evs []askonce.Event) []reachEvent {
	var out []reachEvent
	for _, ev := range evs {
		switch ev.Type {
		case askonce.EventReminded, askonce.EventEscalated, askonce.EventReachFailed, askonce.EventAnswerRefused:
			re := reachEvent{Event: ev}
			_ = json.Unmarshal(ev.Data, &re.Data)
			_ = json.Unmarshal(ev.Data, &re.Failed)
			out = append(out, re)
		}
	}
	return out
}

// emailLinkQuery is the query the answer form posts to: the email
// link's via, and the address and mark of a link mailed to one person
// (askonce.Engine.RecipientMark), kept as they came.
func emailLinkQuery(r *http.Request) string {
	if answeredVia(r) != askonce.ViaEmailLink {
		return ""
	}
	q := url.Values{"via": {askonce.ViaEmailLink}}
	if by, mark := r.URL.Query().Get("by"), r.URL.Query().Get("mark"); by != "" && mark != "" {
		q.Set("by", by)
		q.Set("mark", mark)
	}
	return "?" + q.Encode()
}

// answerer is who answers on the page: the person the email link was
// mailed to, when it carries their valid mark; else the inbox user
// signed in, if any.
func (h *Handler) answerer(r *http.Request, j *askonce.Job) askonce.Answerer {
	a := askonce.Answerer{Via: answeredVia(r)}
	if ss := h.personSession(r, j); ss != nil {
		a.By = ss.name
		a.SignedIn, a.Email = ss.oidc, ss.email
	}
	if a.Via == askonce.ViaEmailLink {
		q := r.URL.Query()
		if addr := h.engine.RecipientOf(j, q.Get("by"), q.Get("mark")); addr != "" {
			a.By = addr
		}
	}
	return a
}

// refuse tells a person not among the job's answerers that their answer
// was not taken, and records it; the question still waits.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, j *askonce.Job, a askonce.Answerer) {
	if err := h.engine.RefuseAnswer(r.Context(), j, a); err != nil {
		h.log.Warn("answer page: record a refused answer", "job", j.ID, "err", err)
	}
	h.answerMessage(w, http.StatusForbidden, "Not yours to answer",
		"Sorry, this question is for other people to answer, so your answer was not taken; the question still waits for them.")
}

func init() {
	funcs["reachRows"] = reachRows
	funcs["reachEvents"] = reachEvents
	funcs["waitSeconds"] = func(s int64) string { return askonce.FormatWait(time.Duration(s) * time.Second) }
	funcs["waited"] = func(j *askonce.Job, now time.Time) string { return askonce.FormatWait(j.Waited(now)) }
}
