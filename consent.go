package askonce

import (
	"encoding/json"
	"strconv"
	"time"
)

// No silent consent (docs/protocol.md rule 17): a default answers for the
// person only when someone chose it. Three may choose one: the job's
// specSchema (a property's "default"), the asking agent (a gate-mode
// agent's question is its own, defaults included), and an interpreter
// for a destructive step, whose safe answer is "no". A default an
// interpreter puts anywhere else (the first option, a guess of a model)
// is dropped before the question is asked, so that when nobody answers
// the job expires rather than proceeding on it.

// dropUnchosenDefault clears the default of q, a question a managed
// job's interpreter asked, when nobody chose it: it stays only as a
// destructive step's "no". A question with fields has no default of its
// own; its fields keep theirs (each is shown with its field and fills it
// only in an answer the person gives), and chosenDefault decides whether
// they answer together when nobody does.
func dropUnchosenDefault(q *Question) {
	if !destructiveNo(q) {
		q.Default = ""
	}
}

// chosenDefault is the answer q's default gives j when nobody answers (on
// expiry, on a decline, under the hard cap's fallback), if someone chose
// it: any default of a gate job's question (the asking agent's own), a
// managed question's default that survived dropUnchosenDefault, and for a
// managed question with fields, its fields' defaults only when each is
// the default the spec schema gives the property of the field's name.
func chosenDefault(j *Job, q *Question) (Answer, bool) {
	if j.Mode != ModeGate && len(q.Fields) > 0 {
		defaults := schemaDefaults(j.SpecSchema)
		for _, f := range q.Fields {
			if d, ok := defaults[f.Name]; f.Default != "" && (!ok || d != f.Default) {
				return Answer{}, false
			}
		}
	}
	return q.DefaultAnswer()
}

// destructiveNo reports whether q is the confirmation of a destructive
// step (rule 7: reason target_file_exists) defaulting to "no", the one
// default an interpreter can justify on its own.
func destructiveNo(q *Question) bool {
	return q.Type == QuestionConfirm && q.Reason == "target_file_exists" && q.Default == "no"
}

// schemaDefaults are the defaults a spec schema gives its top-level
// properties, by name, as a question's answer spells them: a string as it
// is, a boolean as yes or no, a number as JSON writes it. A property
// whose default is of another type, and a schema that is not an object,
// give none.
func schemaDefaults(schema json.RawMessage) map[string]string {
	if len(schema) == 0 {
		return nil
	}
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := map[string]string{}
	for name, p := range s.Properties {
		var v any
		if len(p.Default) == 0 || json.Unmarshal(p.Default, &v) != nil {
			continue
		}
		switch v := v.(type) {
		case string:
			out[name] = v
		case bool:
			out[name] = "no"
			if v {
				out[name] = "yes"
			}
		case float64:
			out[name] = string(p.Default)
		}
	}
	return out
}

// ExpiryNote says plainly what became of a question nobody answered in
// time: "Nobody answered within 24h; the default “no” was used." when its
// default answered for the person (AnswerSource is SourceTimeout), or
// "Nobody answered within 24h, and the question had no default; the job
// expired." when the job expired. It is "" for any other job. The wait is
// counted from the job's creation to the question's expiry.
func (j *Job) ExpiryNote() string {
	q := j.Question
	if q == nil || q.ExpiresAt == nil || (j.AnswerSource != SourceTimeout && j.Status != StatusExpired) {
		return ""
	}
	within := "Nobody answered within " + waited(q.ExpiresAt.Sub(j.CreatedAt))
	if j.AnswerSource == SourceTimeout {
		return within + "; the default “" + j.AnswerText() + "” was used."
	}
	return within + ", and the question had no default; the job expired."
}

// waited renders how long a question waited, rounded to the minute (to the
// second under a minute), in the largest units that say it exactly:
// "24h", "1h30m", "45m", "30s".
func waited(d time.Duration) string {
	if d < time.Minute {
		return strconv.FormatInt(int64(d.Round(time.Second)/time.Second), 10) + "s"
	}
	d = d.Round(time.Minute)
	h, m := int64(d/time.Hour), int64(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return strconv.FormatInt(m, 10) + "m"
	case m == 0:
		return strconv.FormatInt(h, 10) + "h"
	}
	return strconv.FormatInt(h, 10) + "h" + strconv.FormatInt(m, 10) + "m"
}
