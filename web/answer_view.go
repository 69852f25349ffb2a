package web

import (
	"fmt"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// What the answer page's templates get. Everything shown is plain text
// here; html/template escapes it when it is written.

// choice is one radio of a SELECT_ONE or TARGET_FILE form.
type choice struct {
	Value   string // submitted as is
	Label   string // Value with bidirectional controls made visible
	Default bool
	Checked bool
}

// formView is the answer form of one live question, as first shown or
// as sent back with an error.
type formView struct {
	Token, Action string
	Title, Goal   string
	Question      *askonce.Question
	Text          string // the question's text, made visible
	Kind          string // what the question asks for, in words
	// Legend: Kind heads the list of choices rather than the line under
	// the question (it is said once).
	Legend      bool
	Default     string
	Expires     string // "" when it never expires
	ExpiresISO  string
	Choices     []choice
	AllowOther  bool
	OtherChosen bool
	Other       string // text of one's own (SELECT_ONE) as typed
	Path        string // a typed path (TARGET_FILE)
	Confirm     bool   // CONFIRM
	Files       bool   // TARGET_FILE
	TextAnswer  bool   // FREE_TEXT
	MaxText     int
	TextBytes   int
	// Error and Allowed come from the server's check of the last answer.
	Error   string
	Allowed []string
	// Text typed into a FREE_TEXT textarea, kept on an error.
	Typed string
	// Remembered says where the answer will be remembered beyond the
	// session ("project “shop”", "every project"), "" when it is not; the
	// form then offers "don't remember this", DontRemember its state.
	Remembered   string
	DontRemember bool
	// Fields are the inputs of a question with fields (answer_fields.go).
	Fields []fieldView
	// Single: the question has no fields, but is shown as one
	// (setSingle).
	Single bool
}

func newFormView(j *askonce.Job, token string) *formView {
	v := &formView{
		Token: token, Action: "/a/" + token,
		Title: visible(j.Title), Goal: visible(j.Goal),
		MaxText: askonce.MaxFreeText,
	}
	// A title that is the goal with a capital says it once.
	if strings.EqualFold(strings.TrimSpace(j.Title), strings.TrimSpace(j.Goal)) {
		v.Goal = ""
	}
	if m := j.Memory; m != nil {
		switch m.Scope {
		case askonce.MemoryProject:
			v.Remembered = "the other agents of project “" + visible(m.Project) + "”"
		case askonce.MemoryTenant:
			v.Remembered = "the agents of every project"
		}
	}
	q := j.Question
	if q == nil {
		q = &askonce.Question{Type: askonce.QuestionFreeText}
	}
	v.Question = q
	v.Text, v.Default = visible(q.Text), visible(q.Default)
	if q.ExpiresAt != nil {
		v.Expires, v.ExpiresISO = when(*q.ExpiresAt), q.ExpiresAt.UTC().Format(time.RFC3339)
	}
	switch q.Type {
	case askonce.QuestionSelectOne:
		v.Kind = jobview.Kind(q.Type)
		v.AllowOther = q.AllowOther
		if q.AllowOther {
			v.Kind = "Pick one, or answer in your own words"
		}
	case askonce.QuestionConfirm:
		v.Kind, v.Confirm = jobview.Kind(q.Type), true
	case askonce.QuestionTargetFile:
		v.Kind, v.Files = "Which file? Pick one, or give a path inside the project", true
	default:
		v.Kind = fmt.Sprintf("Answer in your own words (at most %d bytes)", askonce.MaxFreeText)
		v.TextAnswer = true
	}
	if len(q.Fields) > 0 {
		v.setFields(q)
		return v
	}
	if single(q) {
		v.setSingle(q)
		return v
	}
	if q.Type == askonce.QuestionSelectOne || q.Type == askonce.QuestionTargetFile {
		v.Legend = true
		for i, o := range q.Options {
			v.Choices = append(v.Choices, choice{Value: o, Label: visible(q.OptionTitle(i)), Default: o == q.Default})
		}
	}
	return v
}

// keep marks what was chosen and typed, so that a form sent back with an
// error shows the choice that was sent: the radio whose value is chosen,
// else the Other radio (whose value is "") when it was chosen or its text
// typed, else the default; and the other text and the path.
func (v *formView) keep(chosen string, otherRadio bool, other, path string) {
	v.Other, v.Path = other, path
	for i := range v.Choices {
		if chosen != "" && v.Choices[i].Value == chosen {
			v.Choices[i].Checked = true
			return
		}
	}
	if v.AllowOther && ((otherRadio && chosen == "") || strings.TrimSpace(other) != "") {
		v.OtherChosen = true
		return
	}
	v.checkDefault()
}

// checkDefault checks the default's radio, if the question has one.
func (v *formView) checkDefault() {
	for i := range v.Choices {
		if v.Choices[i].Default {
			v.Choices[i].Checked = true
		}
	}
}

// setTyped keeps the text of a FREE_TEXT answer.
func (v *formView) setTyped(s string) {
	v.Typed, v.TextBytes = s, len(s)
}

// Kinds of dead links.
const (
	goneAnswered  = "answered"
	goneDeclined  = "declined"
	goneExpired   = "expired"
	goneCancelled = "cancelled"
	goneClosed    = "closed"
)

// goneView says why a link no longer takes an answer, and when.
type goneView struct {
	Kind    string
	Heading string
	Text    string
	When    string
	WhenISO string
	Title   string
	// Answer is the answer the question got (answered or declined), so a
	// second visit says what it was.
	Answer     string
	OutcomeURL string
}

// newGoneView returns why j's link is dead at now, nil while its question
// waits for an answer (pending and not expired: the engine's rule).
func newGoneView(j *askonce.Job, now time.Time) *goneView {
	q := j.Question
	expired := q != nil && q.ExpiresAt != nil && !now.Before(*q.ExpiresAt)
	if j.Status == askonce.StatusPending && !expired {
		return nil
	}
	g := &goneView{Title: visible(j.Title)}
	if j.AnsweredAt != nil && j.Question != nil {
		g.Answer = visible(j.AnswerText())
	}
	at := j.UpdatedAt
	switch {
	case j.Status == askonce.StatusPending || j.Status == askonce.StatusExpired || j.AnswerSource == askonce.SourceTimeout:
		g.Kind, g.Heading = goneExpired, "This question expired"
		if q != nil && q.ExpiresAt != nil {
			at = *q.ExpiresAt
		}
		g.Text = "Nobody answered in time."
		if n := j.ExpiryNote(); n != "" {
			// Swept: the default answered, or the job expired.
			g.Text = visible(n)
		}
	case j.Status == askonce.StatusCancelled && j.AnsweredAt == nil:
		g.Kind, g.Heading, g.Text = goneCancelled, "This question was cancelled", "The job was cancelled before the question was answered."
	case j.AnsweredAt != nil && j.AnswerSource == askonce.SourceDefault:
		at = *j.AnsweredAt
		g.Kind, g.Heading, g.Text = goneDeclined, "This question was declined", "Someone declined to answer; the job went on without an answer of its own."
	case j.AnsweredAt != nil:
		at = *j.AnsweredAt
		g.Kind, g.Heading = goneAnswered, "This question was already answered"
		g.Text = "It was answered " + sourceWords(j.AnswerSource) + "."
	default:
		g.Kind, g.Heading, g.Text = goneClosed, "This question is closed", "The job no longer waits for an answer (it is "+string(j.Status)+")."
	}
	g.When, g.WhenISO = when(at), at.UTC().Format(time.RFC3339)
	return g
}

// sourceWords says who answered, from the job's answer source.
func sourceWords(s askonce.Source) string {
	switch s {
	case askonce.SourceUser:
		return "by a person"
	case askonce.SourceHistory:
		return "from an earlier answer"
	case askonce.SourceResolver:
		return "by the goal itself"
	case askonce.SourceDefault:
		return "with its default after a decline"
	case askonce.SourceTimeout:
		return "with its default after it expired"
	}
	return "by " + strings.ReplaceAll(string(s), "_", " ")
}

// outcomeView is what became of the job after the answer.
type outcomeView struct {
	Heading  string
	Status   string
	Title    string
	Goal     string
	Answer   string
	Source   string
	Planning bool
	Success  bool
	Failed   bool
	Error    string
	Tasks    []*taskNode
	Assume   []string
	PollURL  string
}

func newOutcomeView(j *askonce.Job, token string) *outcomeView {
	v := &outcomeView{
		Status: string(j.Status), Title: visible(j.Title), Goal: visible(j.Goal),
		Answer: visible(j.AnswerText()),
	}
	if j.AnsweredAt != nil {
		v.Source = sourceWords(j.AnswerSource)
	}
	switch j.Status {
	case askonce.StatusPlanning:
		v.Heading, v.Planning = "Planning…", true
		v.PollURL = "/a/" + token + "/outcome.json"
	case askonce.StatusSuccess:
		v.Heading, v.Success = "Planned", true
		if j.Plan != nil {
			v.Tasks = planTree(j.Plan.Tasks)
			for _, a := range j.Plan.Assumptions {
				v.Assume = append(v.Assume, visible(a))
			}
		}
	case askonce.StatusCancelled:
		v.Heading = "Cancelled"
	default:
		v.Heading, v.Failed, v.Error = "Planning failed", true, visible(j.Error)
	}
	return v
}

// taskNode is one task of the plan tree, on the answer page and the
// inbox's job page: it sits under the dependency that is done last, and
// After lists all of them.
type taskNode struct {
	ID, Title, Instruction string
	After                  []string
	Children               []*taskNode
}

// planTree arranges tasks as a tree for reading: a task without
// dependencies is a root, any other is placed under the last of its
// dependencies in dependency order. A plan is a
// validated DAG; tasks caught in a cycle anyway are shown as roots.
func planTree(tasks []askonce.Task) []*taskNode {
	nodes := make(map[string]*taskNode, len(tasks))
	for _, t := range tasks {
		n := &taskNode{ID: visible(t.ID), Title: visible(t.Title), Instruction: visible(t.Instruction)}
		if n.Instruction == n.Title {
			n.Instruction = "" // said once is enough
		}
		for _, d := range t.DependsOn {
			n.After = append(n.After, visible(d))
		}
		nodes[t.ID] = n
	}
	// Kahn's order: pos[id] is a task's place once its dependencies are placed.
	pos := map[string]int{}
	for changed := true; changed; {
		changed = false
		for _, t := range tasks {
			if _, done := pos[t.ID]; done {
				continue
			}
			ready := true
			for _, d := range t.DependsOn {
				if _, ok := pos[d]; !ok && nodes[d] != nil {
					ready = false
				}
			}
			if ready {
				pos[t.ID], changed = len(pos), true
			}
		}
	}
	order := make([]askonce.Task, 0, len(tasks))
	placed := make([]bool, len(tasks))
	for len(order) < len(pos) {
		for i, t := range tasks {
			if p, ok := pos[t.ID]; ok && !placed[i] && p == len(order) {
				order, placed[i] = append(order, t), true
			}
		}
	}
	var roots []*taskNode
	for _, t := range order {
		// Under the dependency placed last, as the terminal draws it
		// (cmd/askonce printPlan): the task can start once it is done.
		var parent *taskNode
		last := -1
		for _, d := range t.DependsOn {
			if p, ok := pos[d]; ok && p < pos[t.ID] && p > last {
				parent, last = nodes[d], p
			}
		}
		if parent == nil {
			roots = append(roots, nodes[t.ID])
		} else {
			parent.Children = append(parent.Children, nodes[t.ID])
		}
	}
	for i, t := range tasks {
		if !placed[i] {
			roots = append(roots, nodes[t.ID])
		}
	}
	return roots
}

// when formats a time for a page.
func when(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// visible shows bidirectional controls as <U+202E> so that text reads as
// what it is.
func visible(s string) string {
	if !strings.ContainsFunc(s, askonce.IsBidiControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if askonce.IsBidiControl(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
