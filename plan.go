package askonce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plan is the validated result of a job: a title, a free-form spec object and
// a DAG of tasks.
type Plan struct {
	Title string          `json:"title"`
	Spec  json.RawMessage `json:"spec,omitempty"`
	Tasks []Task          `json:"tasks"`
	// Assumptions the interpreter made instead of asking (fallback,
	// gating, defaults). Documented so a human can check them.
	Assumptions []string `json:"assumptions,omitempty"`
}

// Task is one node of a plan's DAG.
type Task struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction"`
	DependsOn   []string `json:"dependsOn"`
	// Bindings say which candidate or file a mention in the task's text
	// means, in the text's order (docs/protocol.md rule 16). The text
	// itself stays as the user wrote it.
	Bindings []Binding `json:"bindings,omitempty"`
}

// Binding records beside a task's text which candidate (or file) one of
// its mentions means: Mention is the text as written, Candidate the name
// it means.
type Binding struct {
	Mention   string `json:"mention"`
	Candidate string `json:"candidate"`
}

// Clone returns a deep copy of p.
func (p Plan) Clone() Plan {
	p.Spec = slices.Clone(p.Spec)
	p.Assumptions = slices.Clone(p.Assumptions)
	tasks := make([]Task, len(p.Tasks))
	for i, t := range p.Tasks {
		t.DependsOn = slices.Clone(t.DependsOn)
		t.Bindings = slices.Clone(t.Bindings)
		tasks[i] = t
	}
	p.Tasks = tasks
	return p
}

// Validate checks p against the plan schema and the DAG rules of
// docs/protocol.md rule 9: at least one task, unique non-empty task ids, every
// dependency exists, no cycle, every binding names a mention and a
// candidate, and a spec that is a JSON object meeting specSchema when one
// is given. It returns every problem found, so that the
// next attempt can fix them all.
func (p *Plan) Validate(specSchema json.RawMessage) []string {
	var errs []string
	if len(p.Tasks) == 0 {
		errs = append(errs, "plan has no tasks; at least one is required")
	}
	ids := make(map[string]int, len(p.Tasks))
	for i, t := range p.Tasks {
		switch {
		case strings.TrimSpace(t.ID) == "":
			errs = append(errs, fmt.Sprintf("task %d has no id", i+1))
		case ids[t.ID] > 0:
			errs = append(errs, fmt.Sprintf("task id %q is used by tasks %d and %d", t.ID, ids[t.ID], i+1))
		default:
			ids[t.ID] = i + 1
		}
		if strings.TrimSpace(t.Title) == "" && strings.TrimSpace(t.Instruction) == "" {
			errs = append(errs, fmt.Sprintf("task %q has neither title nor instruction", t.ID))
		}
		for j, b := range t.Bindings {
			if strings.TrimSpace(b.Mention) == "" || strings.TrimSpace(b.Candidate) == "" {
				errs = append(errs, fmt.Sprintf("task %q binding %d needs both a mention and a candidate", t.ID, j+1))
			}
		}
	}
	for _, t := range p.Tasks {
		for _, d := range t.DependsOn {
			if ids[d] == 0 {
				errs = append(errs, fmt.Sprintf("task %q depends on %q, which does not exist", t.ID, d))
			}
		}
	}
	if cyc := findCycle(p.Tasks); cyc != nil {
		errs = append(errs, "dependency cycle: "+strings.Join(cyc, " -> "))
	}
	if len(p.Spec) > 0 || len(specSchema) > 0 {
		// A plan without a spec meets a schema only if {} does.
		spec := orEmptyObject(p.Spec)
		if !json.Valid(spec) {
			errs = append(errs, "spec is not valid JSON")
		} else if !isObject(spec) {
			errs = append(errs, "spec must be a JSON object")
		} else if len(specSchema) > 0 {
			errs = append(errs, checkSpec(specSchema, spec)...)
		}
	}
	return errs
}

// isObject reports whether valid JSON is an object: its first byte after
// white space opens one.
func isObject(valid []byte) bool {
	b := bytes.TrimLeft(valid, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func orEmptyObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// findCycle returns the task ids of one dependency cycle, or nil.
func findCycle(tasks []Task) []string {
	deps := make(map[string][]string, len(tasks))
	for _, t := range tasks {
		deps[t.ID] = t.DependsOn
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[string]int, len(tasks))
	var path []string
	var visit func(id string) []string
	visit = func(id string) []string {
		state[id] = onPath
		path = append(path, id)
		for _, d := range deps[id] {
			if _, ok := deps[d]; !ok {
				continue
			}
			switch state[d] {
			case onPath:
				i := slices.Index(path, d)
				return append(slices.Clone(path[i:]), d)
			case unseen:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[id] = done
		return nil
	}
	for _, t := range tasks {
		if state[t.ID] == unseen {
			if c := visit(t.ID); c != nil {
				return c
			}
		}
	}
	return nil
}

// Outcome is what one interpreter call produced, parsed: exactly one of a
// plan or a question.
type Outcome struct {
	Plan     *Plan
	Question *Question
	// Title is the interpreter's title for the job, if it gave one.
	Title string
}

// wireOutcome is the JSON every interpreter emits: {"plan": {...}} or
// {"question": {...}} ("clarification" is accepted for "question"), with an
// optional top-level "title".
type wireOutcome struct {
	Title         string    `json:"title"`
	Plan          *Plan     `json:"plan"`
	Question      *Question `json:"question"`
	Clarification *Question `json:"clarification"`
}

// ParseOutcome parses an interpreter's raw output. It is the one parser
// shared by every interpreter, so that parse and schema errors are found,
// recorded and fed back in one place. Errors are EINVALID with a message
// meant for the next attempt's feedback.
func ParseOutcome(raw []byte) (*Outcome, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, Errorf(EINVALID, "output is empty; expected a JSON object with \"plan\" or \"question\"")
	}
	if !utf8.Valid(raw) {
		return nil, Errorf(EINVALID, "output is not valid UTF-8")
	}
	raw = stripFence(raw)
	var w wireOutcome
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&w); err != nil {
		return nil, Errorf(EINVALID, "output is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, Errorf(EINVALID, "output has text after its JSON object")
	}
	if w.Question == nil {
		w.Question = w.Clarification
	}
	o := &Outcome{Plan: w.Plan, Question: w.Question, Title: w.Title}
	if err := o.Check(); err != nil {
		return nil, err
	}
	return o, nil
}

// Check checks and completes an outcome as ParseOutcome does once it has
// decoded one: exactly one of a plan or a question, the question
// normalised (Question.Normalize), the title trimmed and taken from the
// plan when unset. The plan itself is validated by the engine
// (Plan.Validate). Errors are EINVALID, worded for the next attempt's
// feedback.
func (o *Outcome) Check() error {
	switch {
	case o.Plan != nil && o.Question != nil:
		return Errorf(EINVALID, "output has both \"plan\" and \"question\"; return exactly one")
	case o.Plan == nil && o.Question == nil:
		return Errorf(EINVALID, "output has neither \"plan\" nor \"question\"")
	case o.Question != nil:
		if err := o.Question.Normalize(); err != nil {
			return err
		}
	}
	o.Title = strings.TrimSpace(o.Title)
	if o.Title == "" && o.Plan != nil {
		o.Title = strings.TrimSpace(o.Plan.Title)
	}
	return nil
}

// stripFence removes a Markdown code fence around JSON, which chat models
// add even when told not to.
func stripFence(raw []byte) []byte {
	if !bytes.HasPrefix(raw, []byte("```")) {
		return raw
	}
	body := raw[3:]
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	}
	body = bytes.TrimSpace(body)
	body = bytes.TrimSuffix(body, []byte("```"))
	return bytes.TrimSpace(body)
}

// MaxTitle is the longest title, in runes.
const MaxTitle = 80

// tidyTitle reports whether s has no white space but single spaces
// between words, and no control characters: what ClampTitle's collapsing
// leaves unchanged.
func tidyTitle(s string) bool {
	space := true // at the start, a space would be leading
	for _, r := range s {
		switch {
		case r == ' ':
			if space {
				return false
			}
			space = true
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return false
		default:
			space = false
		}
	}
	return !space || s == ""
}

// DeriveTitle makes a title from a goal: its first line, white space
// collapsed, cut at a word boundary to at most MaxTitle runes.
func DeriveTitle(goal string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(goal), "\n")
	return ClampTitle(line)
}

// ClampTitle collapses white space and cuts s at a word boundary to at most
// MaxTitle runes, marking a cut with an ellipsis.
func ClampTitle(s string) string {
	if !tidyTitle(s) {
		s = strings.Join(strings.Fields(s), " ")
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, s)
	}
	if utf8.RuneCountInString(s) <= MaxTitle {
		return s
	}
	r := []rune(s)[:MaxTitle-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > MaxTitle/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
