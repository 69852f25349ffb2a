package rules

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/askonce/askonce"
)

const (
	envSchema       = `{"type": "object", "required": ["environment"], "properties": {"environment": {"enum": ["staging", "production"]}}}`
	oneOfSchema     = `{"type": "object", "required": ["size"], "properties": {"size": {"oneOf": [{"const": "small"}, {"const": "large"}]}}}`
	dryRunSchema    = `{"type": "object", "required": ["dryRun"], "properties": {"dryRun": {"type": "boolean"}}}`
	notifySchema    = `{"type": "object", "required": ["notify"], "properties": {"notify": {"type": "boolean"}}}`
	ownerSchema     = `{"type": "object", "required": ["owner"], "properties": {"owner": {"type": "string", "minLength": 1}}}`
	recipientSchema = `{"type": "object", "required": ["recipient"], "properties": {"recipient": {"type": "string"}}}`
	mailSchema      = `{"type": "object", "required": ["to"], "properties": {"to": {"type": "string", "format": "email"}}}`
	titleSchema     = `{"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}`
	testsSchema     = `{"type": "object", "required": ["runTests"], "properties": {"runTests": {"type": "boolean"}}}`
	skipSchema      = `{"type": "object", "required": ["skipTests"], "properties": {"skipTests": {"type": "boolean"}}}`
	cadenceSchema   = `{"type": "object", "required": ["cadence"], "properties": {"cadence": {"enum": ["daily", "weekly", "monthly"]}}}`
	langSchema      = `{"type": "object", "required": ["language"], "properties": {"language": {"enum": ["Go", "Rust", "Java"]}}}`
	sizeSchema      = `{"type": "object", "required": ["size"], "properties": {"size": {"enum": ["small", "large"]}}}`
	closedSchema    = `{"type": "object", "additionalProperties": false, "required": ["goal", "replicas"],
		"properties": {"goal": {"type": "string"}, "replicas": {"type": "integer", "minimum": 1}}}`
)

func TestSpecSchemaAsksForARequiredFieldTheGoalLeavesOpen(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectSchema(in); return &r.asked }, []detectorCase{
		{goal: "ship the release", schema: envSchema, options: asks("staging", "production"), text: "“environment”"},
		{goal: "ship the release to staging, then production", schema: envSchema, options: asks("staging", "production")},
		{goal: "make the icon", schema: oneOfSchema, options: asks("small", "large")},
		{goal: "migrate the users", schema: dryRunSchema, options: asks("yes", "no"), text: "“dry run”"},
		{goal: "triage the bug", schema: ownerSchema, options: asks(), text: "What should “owner” be?"},
		{goal: "scale the service", schema: closedSchema, options: asks(), text: "“replicas”"},
		{goal: "ship the release", schema: envSchema, answer: "banana", options: asks("staging", "production")},
		// Filled by the goal or the answer, or nothing to fill.
		{goal: "ship the release to production", schema: envSchema},
		{goal: "ship the release", schema: envSchema, answer: "prod"},
		{goal: "migrate the users", schema: dryRunSchema, answer: "yes"},
		{goal: "deploy the api, no dry run", schema: dryRunSchema},
		{goal: "run the migration as a dry run first", schema: dryRunSchema},
		{goal: "publish the release without notifying subscribers", schema: notifySchema},
		{goal: "rotate the keys; do not send a notification", schema: notifySchema},
		{goal: "publish the release and notify the mailing list", schema: notifySchema},
		{goal: "publish the release", schema: notifySchema, options: asks("yes", "no")},
		{goal: "publish the notes", schema: notifySchema, options: asks("yes", "no")},
		{goal: "triage the bug, owner: Priya", schema: ownerSchema},
		{goal: "triage the bug", schema: ownerSchema, answer: "Priya"},
		{goal: "scale the service to replicas 3", schema: closedSchema},
		{goal: "ship the release", schema: `{"type": "object", "required": ["environment"], "properties": {"environment": {"enum": ["staging", "production"], "default": "staging"}}}`},
		{goal: "ship the release", schema: `{"type": "object", "properties": {"environment": {"enum": ["staging", "production"]}}}`},
		{goal: "ship the release"},
		// Filled in words: a recipient, a title, a boolean, a form of a choice.
		{goal: "mail the draft contract to legal@example.org", schema: recipientSchema},
		{goal: "text Amara the gate code", schema: recipientSchema},
		{goal: "hand the keys to Jon Snow", schema: recipientSchema},
		{goal: "mail the draft contract", schema: recipientSchema, options: asks(), text: "“recipient”"},
		{goal: "mail the draft contract to the lawyers", schema: mailSchema, options: asks()},
		{goal: "mail legal@example.org the draft", schema: mailSchema},
		{goal: "start a doc titled 'Hiring plan'", schema: titleSchema},
		{goal: "make a wiki page named Onboarding for new hires", schema: titleSchema},
		{goal: "start a doc about hiring", schema: titleSchema, options: asks()},
		{goal: "don't bother people about it, just restart the workers", schema: notifySchema, options: asks("yes", "no")},
		{goal: "restart the workers and tell the on-call engineer", schema: notifySchema},
		{goal: "restart the workers without informing anyone", schema: notifySchema},
		{goal: "build the image, skipping the tests", schema: testsSchema},
		{goal: "build the image, skipping the tests", schema: skipSchema},
		{goal: "build the image", schema: testsSchema, options: asks("yes", "no")},
		{goal: "rotate the logs every month", schema: cadenceSchema},
		{goal: "rotate the logs", schema: cadenceSchema, options: asks("daily", "weekly", "monthly")},
		{goal: "translate the Java client to Rust", schema: langSchema},
		{goal: "rewrite it in Rust instead of Go", schema: langSchema},
		{goal: "translate the client to Rust or Go", schema: langSchema, options: asks("Rust", "Go")},
		{goal: "draw a small logo. A large one is overkill.", schema: sizeSchema},
		{goal: "deploy the hotfix to prod", schema: envSchema},
		{goal: "assign the outage ticket to @devon", schema: ownerSchema},
		{goal: "merge the fix; I know it is late", schema: notifySchema, options: asks("yes", "no")},
	})
}

// The answer lands in the spec, and every plan the rules make for a job
// with a spec schema validates against it, as the engine checks.
func TestSpecSchemaPlanValidatesAgainstTheSchema(t *testing.T) {
	t.Parallel()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		schema, goal, answer, directive string
		field                           string
		want                            any
	}{
		{envSchema, "ship the release", "production", "", "environment", "production"},
		{envSchema, "ship the release to staging", "", "", "environment", "staging"},
		{envSchema, "ship the release", "", askonce.FallbackDirective, "environment", "staging"},
		{oneOfSchema, "make the icon", "large", "", "size", "large"},
		{dryRunSchema, "migrate the users", "no", "", "dryRun", false},
		{dryRunSchema, "deploy the api, no dry run", "", "", "dryRun", false},
		{dryRunSchema, "run the migration as a dry run first", "", "", "dryRun", true},
		{notifySchema, "publish the release without notifying subscribers", "", "", "notify", false},
		{notifySchema, "rotate the keys; do not send a notification", "", "", "notify", false},
		{notifySchema, "publish the release and notify the mailing list", "", "", "notify", true},
		{ownerSchema, "triage the bug", "Priya Patel", "", "owner", "Priya Patel"},
		{closedSchema, "scale the service", "3", "", "replicas", float64(3)},
		{closedSchema, "scale the service to replicas 5", "", "", "replicas", float64(5)},
		{closedSchema, "run 4 replicas of the service", "", "", "replicas", float64(4)},
		{recipientSchema, "hand the keys to Jon Snow", "", "", "recipient", "Jon Snow"},
		{mailSchema, "mail the draft contract to legal@example.org.", "", "", "to", "legal@example.org"},
		{titleSchema, "start a doc titled 'Hiring plan'", "", "", "title", "Hiring plan"},
		{testsSchema, "build the image, skipping the tests", "", "", "runTests", false},
		{skipSchema, "build the image, skipping the tests", "", "", "skipTests", true},
		{notifySchema, "restart the workers and tell the on-call engineer", "", "", "notify", true},
		{cadenceSchema, "rotate the logs every month", "", "", "cadence", "monthly"},
		{langSchema, "translate the Java client to Rust", "", "", "language", "Rust"},
	}
	for _, c := range cases {
		prompt := c.goal
		if c.answer != "" {
			prompt = askonce.ResolvedPrompt(c.goal, c.answer)
		}
		res, err := in.Interpret(context.Background(), &askonce.Request{Goal: c.goal, Prompt: prompt, Directive: c.directive, SpecSchema: []byte(c.schema), Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		o := res.Outcome
		if o.Plan == nil {
			t.Errorf("%q + %q: no plan: %s", c.goal, c.answer, res.Raw)
			continue
		}
		if errs := o.Plan.Validate([]byte(c.schema)); len(errs) > 0 {
			t.Errorf("%q + %q: the plan does not validate: %v\n%s", c.goal, c.answer, errs, o.Plan.Spec)
		}
		var spec map[string]any
		if err := json.Unmarshal(o.Plan.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if spec[c.field] != c.want {
			t.Errorf("%q + %q: spec.%s = %#v, want %#v", c.goal, c.answer, c.field, spec[c.field], c.want)
		}
	}
}
