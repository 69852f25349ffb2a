package askonce

import (
	"encoding/json"
	"testing"
	"time"
)

// Rule 17: of the defaults a managed job's interpreter gives, only a
// destructive step's "no" and the spec schema's defaults stay.
func TestRule17_OnlyAChosenDefaultStays(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"environment":{"enum":["staging","production"],"default":"staging"},
		"replicas":{"type":"integer","default":2},"dryRun":{"type":"boolean","default":false},"owner":{"type":"string"}}}`)
	fields := func(fs ...QuestionField) Question {
		q := Question{Text: "Before the deploy:", Fields: fs}
		if err := q.Normalize(); err != nil {
			t.Fatal(err)
		}
		return q
	}
	env := QuestionField{Name: "environment", Type: QuestionSelectOne, Options: []string{"staging", "production"}, Default: "staging", Required: true}
	replicas := QuestionField{Name: "replicas", Default: "2", Required: true}
	dryRun := QuestionField{Name: "dryRun", Type: QuestionConfirm, Default: "no", Required: true}
	for _, c := range []struct {
		name string
		q    Question
		kept bool
	}{
		{"a destructive step's no", Question{Type: QuestionConfirm, Text: "Delete it?", Reason: "target_file_exists", Default: "no"}, true},
		{"a destructive step's yes", Question{Type: QuestionConfirm, Text: "Delete it?", Reason: "target_file_exists", Default: "yes"}, false},
		{"a no that is not a destructive step's", Question{Type: QuestionConfirm, Text: "Dry run?", Reason: "missing_required_info", Default: "no"}, false},
		{"the first option", Question{Type: QuestionSelectOne, Text: "Which bowl?", Options: []string{"metal", "glass"}, Default: "metal"}, false},
		{"fields whose defaults are the schema's", fields(env, replicas, dryRun), true},
		{"a field whose default is not the schema's", fields(env, QuestionField{Name: "replicas", Default: "3", Required: true}), false},
		{"a field the schema gives no default", fields(env, QuestionField{Name: "owner", Default: "ops", Required: true}), false},
	} {
		if _, has := c.q.DefaultAnswer(); !has {
			t.Fatalf("%s: the question has no default to keep or drop: %+v", c.name, c.q)
		}
		q := c.q.Clone()
		dropUnchosenDefault(&q)
		if _, kept := chosenDefault(&Job{SpecSchema: schema}, &q); kept != c.kept {
			t.Errorf("%s: default kept %v, want %v", c.name, kept, c.kept)
		}
		if _, gate := chosenDefault(&Job{Mode: ModeGate, SpecSchema: schema}, &c.q); !gate {
			t.Errorf("%s: the asking agent's own default was not kept", c.name)
		}
		for i, f := range q.Fields {
			if f.Default != c.q.Fields[i].Default {
				t.Errorf("%s: field %s's default %q changed to %q; a field's own default stays", c.name, f.Name, c.q.Fields[i].Default, f.Default)
			}
		}
	}
}

func TestWaitedSaysTheWaitInTheLargestExactUnits(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		24 * time.Hour:                       "24h",
		24*time.Hour + 3*time.Second:         "24h",
		90 * time.Minute:                     "1h30m",
		45 * time.Minute:                     "45m",
		2*time.Second + 300*time.Millisecond: "2s",
	} {
		if got := waited(d); got != want {
			t.Errorf("waited(%v) = %q, want %q", d, got, want)
		}
	}
}
