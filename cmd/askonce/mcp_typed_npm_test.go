package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The TypeScript SDK 1.x client, over askonce serve's /mcp, is elicited a
// question of typed fields: its schema validation accepts askonce's
// requestedSchema (an integer with bounds, titled options, a
// multi-select, a date, a boolean), and the content it sends arrives
// typed: the number 3, the second of two options that differ only in
// case, the picks as a list. Over the answer tool an out-of-range number
// and a pick that is not an option are a tool error naming each field,
// and the question stays pending.
func mcpNpmClientTypedAnswers(t *testing.T) {
	dir := requireNPM(t)
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"))
	out := runNode(t, time.Minute, []string{"ASKONCE_URL=" + in.base + "/mcp"}, filepath.Join(dir, "typed.mjs"), "http")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got struct {
		Schema struct {
			Replicas struct {
				Type             string
				Minimum, Maximum float64
			}
			Zones struct {
				Type     string
				MaxItems int
			}
			Start   struct{ Format string }
			Migrate struct{ Type string }
		}
		Value              map[string]any
		Refused            string
		StatusAfterRefusal string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("%v in the script's report:\n%s", err, out)
	}
	s := got.Schema
	if s.Replicas.Type != "integer" || s.Replicas.Minimum != 1 || s.Replicas.Maximum != 10 || s.Zones.Type != "array" || s.Zones.MaxItems != 2 ||
		s.Start.Format != "date" || s.Migrate.Type != "boolean" {
		t.Errorf("schema %+v; want an integer 1..10, an array of at most 2, a date, a boolean", s)
	}
	v, _ := json.Marshal(got.Value)
	if want := `{"db":"postgres","migrate":true,"replicas":3,"start":"2026-12-01","zones":["eu","us"]}`; string(v) != want {
		t.Errorf("value %s; want %s", v, want)
	}
	if !strings.Contains(got.Refused, "replicas:") || !strings.Contains(got.Refused, "db:") || got.StatusAfterRefusal != "pending" {
		t.Errorf("refusal %q, then %s; want a tool error naming replicas and db, the job pending", got.Refused, got.StatusAfterRefusal)
	}
}
