package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// This file maps A2A's shapes to askonce's domain and back: messages to
// goals and answers, jobs to tasks, task states to job statuses. It maps
// A2A 1.0's shapes only: the SDK's a2av0 layer converts them for 0.3
// clients. The question and plan views are jobview's, the same MCP sends.

// GoalData is the data part a message may carry to start a task, instead
// of (or besides) text: text parts are the goal when Goal is empty.
type GoalData struct {
	Goal    string   `json:"goal,omitempty"`
	Profile string   `json:"profile,omitempty"`
	Files   []string `json:"files,omitempty"`
	// Candidates are the names of the things besides files the goal may
	// refer to (askonce.Job.Candidates).
	Candidates []string `json:"candidates,omitempty"`
	HardCap    string   `json:"hardCap,omitempty"`
	// Memory widens the job's answer memory (askonce.Memory); the
	// message's metadata askonce.memory says the same for a text goal.
	Memory *askonce.Memory `json:"memory,omitempty"`
}

// MessageMeta is what askonce reads of a message's metadata, under the
// key "askonce": the job's memory ({scope, project, ttl, fresh}) on the
// message that starts a task, and dontRemember on the one that answers.
type MessageMeta struct {
	Memory       *askonce.Memory `json:"memory,omitempty"`
	DontRemember bool            `json:"dontRemember,omitempty"`
}

// metaOf reads m's askonce metadata.
func metaOf(m *sdk.Message) (MessageMeta, error) {
	var meta MessageMeta
	if raw, ok := m.Metadata["askonce"].(map[string]any); ok {
		if err := fromMap(raw, &meta); err != nil {
			return meta, fmt.Errorf("%w: metadata askonce is not {memory, dontRemember}: %v", sdk.ErrInvalidParams, err)
		}
	}
	return meta, nil
}

// QuestionData is an input-required task's question, the data part of its
// status message: the typed question, where a person can answer it, and
// the JSON Schema of an answer (the form MCP elicits).
type QuestionData struct {
	jobview.Question
	JobID     string         `json:"jobId"`
	AnswerURL string         `json:"answerUrl,omitempty"`
	Schema    map[string]any `json:"schema"`
}

// PlanArtifactID is the id (and name) of a completed task's plan artifact.
const PlanArtifactID = "plan"

// textOf joins a message's text parts.
func textOf(m *sdk.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if t, ok := p.Content.(sdk.Text); ok {
			parts = append(parts, string(t))
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// dataOf is a message's first data part, nil for none.
func dataOf(m *sdk.Message) map[string]any {
	for _, p := range m.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	return nil
}

// createRequest is the job a message without a task id starts.
func createRequest(tenant string, m *sdk.Message) (askonce.CreateRequest, error) {
	var g GoalData
	if d := dataOf(m); d != nil {
		if err := fromMap(d, &g); err != nil {
			return askonce.CreateRequest{}, fmt.Errorf("%w: the data part is not {goal, profile, files, candidates, hardCap}: %v", sdk.ErrInvalidParams, err)
		}
	}
	goal := strings.TrimSpace(g.Goal)
	if goal == "" {
		goal = textOf(m)
	}
	if goal == "" {
		return askonce.CreateRequest{}, fmt.Errorf("%w: the message has no goal: send it as a text part (or a data part {\"goal\": ...})", sdk.ErrInvalidParams)
	}
	session := m.ContextID
	if session == "" {
		session = sdk.NewContextID()
	}
	meta, err := metaOf(m)
	if err != nil {
		return askonce.CreateRequest{}, err
	}
	var mem askonce.Memory
	switch {
	case g.Memory != nil:
		mem = *g.Memory
	case meta.Memory != nil:
		mem = *meta.Memory
	}
	notify, err := notifyOf(m)
	if err != nil {
		return askonce.CreateRequest{}, err
	}
	return askonce.CreateRequest{
		TenantID: tenant, SessionID: session, Goal: goal,
		Profile: g.Profile, Files: g.Files, Candidates: g.Candidates, HardCap: askonce.HardCap(g.HardCap),
		Memory: mem, Notify: notify,
	}, nil
}

// NotifyMetadata is the message metadata key of a new task's recipients,
// the shape of POST /jobs' notify: {"slack": {"channel": "C…"} or
// {"user": "U…"}, "email": ["a@example.com"]}.
const NotifyMetadata = "notify"

// notifyOf reads the recipients a message's metadata names; nil for none.
// The engine validates them.
func notifyOf(m *sdk.Message) (*askonce.Recipients, error) {
	raw, ok := m.Metadata[NotifyMetadata]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata.notify: %v", sdk.ErrInvalidParams, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	r := new(askonce.Recipients)
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf(`%w: metadata.notify is not {"slack": {"channel" or "user": id}, "email": [addresses]}: %v`, sdk.ErrInvalidParams, err)
	}
	return r, nil
}

// reply is what a message on an input-required task says: an answer, or
// that the user declines.
type reply struct {
	answer       askonce.Answer
	decline      bool
	dontRemember bool
}

// replyOf reads the answer a message gives q, typed: a data part's
// {"answer": value} (an object of field values for a question with
// fields), or the field values themselves, each value of the JSON type it
// came in (jobview.AnswerFrom); else the text parts, as words the person
// typed. The engine checks it as the HTTP API does.
func replyOf(m *sdk.Message, q *askonce.Question) reply {
	meta, _ := metaOf(m)
	r := reply{dontRemember: meta.DontRemember}
	if t := textOf(m); t != "" {
		r.answer = askonce.TextAnswer(t)
	}
	d := dataOf(m)
	if d == nil {
		return r
	}
	if v, _ := d["decline"].(bool); v {
		return reply{decline: true}
	}
	if v, _ := d["dontRemember"].(bool); v {
		r.dontRemember = true
	}
	content := maps.Clone(d)
	for _, k := range []string{"decline", "dontRemember"} {
		if q == nil || !hasField(q, k) {
			delete(content, k)
		}
	}
	if inner, ok := content["answer"].(map[string]any); ok && q != nil && len(q.Fields) > 0 && !hasField(q, "answer") {
		content = inner
	}
	if len(content) > 0 {
		if a := jobview.AnswerFrom(q, content); !a.IsZero() || q == nil || len(q.Fields) > 0 {
			r.answer = a
		}
	}
	return r
}

// hasField reports whether q has a field called name.
func hasField(q *askonce.Question, name string) bool {
	for _, f := range q.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// taskOf is j as an A2A task; historyLength, when set, keeps that many of
// the most recent messages.
func (h *handler) taskOf(j *askonce.Job, historyLength *int) *sdk.Task {
	t := &sdk.Task{
		ID:        sdk.TaskID(j.ID),
		ContextID: j.SessionID,
		Status:    h.statusOf(j),
		History:   historyOf(j),
		Metadata:  map[string]any{"askonce": taskMeta(j)},
	}
	if n := historyLength; n != nil && *n >= 0 && *n < len(t.History) {
		t.History = t.History[len(t.History)-*n:]
	}
	if a := planArtifact(j); a != nil {
		t.Artifacts = []*sdk.Artifact{a}
	}
	return t
}

// taskMeta is a task's askonce metadata: the job's id and statuses and,
// for a question answered from memory, which memory and the sentence that
// says so.
func taskMeta(j *askonce.Job) map[string]any {
	m := map[string]any{"jobId": j.ID, "status": string(j.Status), "clarificationStatus": string(j.ClarificationStatus)}
	if note := j.MemoryNote(time.Now()); note != "" {
		m["memory"] = toMap(j.AnswerMemory)
		m["answeredFrom"] = note
	}
	return m
}

// stateOf is the task state of a job's status.
func stateOf(s askonce.Status) sdk.TaskState {
	switch s {
	case askonce.StatusPlanning:
		return sdk.TaskStateWorking
	case askonce.StatusPending:
		return sdk.TaskStateInputRequired
	case askonce.StatusSuccess:
		return sdk.TaskStateCompleted
	case askonce.StatusCancelled:
		return sdk.TaskStateCanceled
	case askonce.StatusFailed, askonce.StatusValidationError, askonce.StatusExpired:
		return sdk.TaskStateFailed
	}
	return sdk.TaskStateUnspecified
}

// statusesOf are the job statuses of a task state, for ListTasks' filter:
// none for a state no job is in.
func statusesOf(s sdk.TaskState) []askonce.Status {
	switch s {
	case sdk.TaskStateWorking:
		return []askonce.Status{askonce.StatusPlanning}
	case sdk.TaskStateInputRequired:
		return []askonce.Status{askonce.StatusPending}
	case sdk.TaskStateCompleted:
		return []askonce.Status{askonce.StatusSuccess}
	case sdk.TaskStateCanceled:
		return []askonce.Status{askonce.StatusCancelled}
	case sdk.TaskStateFailed:
		return []askonce.Status{askonce.StatusFailed, askonce.StatusValidationError, askonce.StatusExpired}
	}
	return nil
}

// statusOf is j's task status; its message says what the caller needs:
// the question, the plan, or why the job failed.
func (h *handler) statusOf(j *askonce.Job) sdk.TaskStatus {
	at := j.UpdatedAt
	st := sdk.TaskStatus{State: stateOf(j.Status), Timestamp: &at}
	agent := func(parts ...*sdk.Part) *sdk.Message {
		return &sdk.Message{ID: j.ID + "-" + string(j.Status), Role: sdk.MessageRoleAgent, TaskID: sdk.TaskID(j.ID), ContextID: j.SessionID, Parts: parts}
	}
	switch j.Status {
	case askonce.StatusPending:
		url := h.eng.AnswerURL(h.cfg.PublicURL, j)
		text := jobview.QuestionText(j.Question)
		if url != "" {
			text += "\nThe user can also answer at " + url
		}
		text += "\nReply on this task with the user's answer."
		q := QuestionData{Question: *jobview.QuestionOf(j.Question), JobID: j.ID, AnswerURL: url, Schema: jobview.AnswerSchema(j.Question)}
		st.Message = agent(sdk.NewTextPart(text), sdk.NewDataPart(toMap(q)))
	case askonce.StatusSuccess:
		text := jobview.PlanText(j.Title, j.Plan)
		if note := j.MemoryNote(time.Now()); note != "" {
			text = "The question was " + note + ".\n" + text
		}
		if note := j.ExpiryNote(); note != "" {
			text = note + "\n" + text
		}
		st.Message = agent(sdk.NewTextPart(text))
	case askonce.StatusCancelled:
		st.Message = agent(sdk.NewTextPart("The job was cancelled."))
	case askonce.StatusFailed, askonce.StatusValidationError, askonce.StatusExpired:
		msg := "The job " + string(j.Status)
		if j.Error != "" {
			msg += ": " + j.Error
		}
		if note := j.ExpiryNote(); note != "" {
			msg += "\n" + note
		}
		st.Message = agent(sdk.NewTextPart(msg))
	}
	return st
}

// planArtifact is a completed job's plan, as data and as text; nil before.
func planArtifact(j *askonce.Job) *sdk.Artifact {
	if j.Status != askonce.StatusSuccess || j.Plan == nil {
		return nil
	}
	return &sdk.Artifact{
		ID:          PlanArtifactID,
		Name:        PlanArtifactID,
		Description: "the validated plan: tasks (a DAG by dependsOn), assumptions and spec",
		Parts: sdk.ContentParts{
			sdk.NewDataPart(toMap(jobview.PlanOf(j.Plan))),
			sdk.NewTextPart(jobview.PlanText(j.Title, j.Plan)),
		},
	}
}

// historyOf is the conversation a job had: the goal, its question, the
// answer.
func historyOf(j *askonce.Job) []*sdk.Message {
	msg := func(suffix string, role sdk.MessageRole, text string) *sdk.Message {
		return &sdk.Message{ID: j.ID + "-" + suffix, Role: role, TaskID: sdk.TaskID(j.ID), ContextID: j.SessionID, Parts: sdk.ContentParts{sdk.NewTextPart(text)}}
	}
	h := []*sdk.Message{msg("goal", sdk.MessageRoleUser, j.Goal)}
	if j.Question != nil {
		h = append(h, msg("question", sdk.MessageRoleAgent, jobview.QuestionText(j.Question)))
	}
	if j.ClarificationResolved() && !j.Answer.IsZero() {
		m := msg("answer", sdk.MessageRoleUser, j.Answer.String())
		m.Parts = append(m.Parts, sdk.NewDataPart(map[string]any{"answer": answerData(j.Answer)}))
		h = append(h, m)
	}
	return h
}

// answerData is a's typed JSON as a data part's value, numbers spelled
// as stored.
func answerData(a askonce.Answer) any {
	d := json.NewDecoder(bytes.NewReader(a.JSON()))
	d.UseNumber()
	var v any
	_ = d.Decode(&v)
	return v
}

// eventText is the status text of a job event a stream reports as
// working; "" for the events whose outcome the final status reports.
func eventText(t askonce.EventType) string {
	switch t {
	case askonce.EventCreated:
		return "Job created; planning."
	case askonce.EventAttempt:
		return "The interpreter ran."
	case askonce.EventAutoResolved:
		return "The question was asked before in this context; answered from history."
	case askonce.EventAnswered:
		return "Answer received; planning with it."
	case askonce.EventFallbackApplied:
		return "The planner asked again; the hard cap's fallback applies: planning without asking."
	case askonce.EventResumed, askonce.EventRecovered:
		return "Planning resumed."
	case askonce.EventValidationFailed:
		return "The interpreter's output was invalid; retrying."
	}
	return ""
}

// toMap is v as a JSON object, for a data part.
func toMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func fromMap(m map[string]any, v any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
