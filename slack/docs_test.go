package slack

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// docBlocks returns the blocks of the first ```json block after marker in
// docs/notifications.md.
func docBlocks(t *testing.T, marker string) []map[string]any {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "notifications.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("docs/notifications.md no longer says %q", marker)
	}
	_, after, _ = strings.Cut(after, "```json\n")
	body, _, _ := strings.Cut(after, "```")
	var v struct {
		Blocks []map[string]any `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("the documented Block Kit JSON does not parse: %v\n%s", err, body)
	}
	return v.Blocks
}

// shape is a block list as its block types, each actions block's
// action_ids, and the texts of its buttons: what a reader of the docs
// relies on, without the fields the docs shorten.
func shape(blocks []map[string]any) []string {
	var out []string
	for _, b := range blocks {
		out = append(out, b["type"].(string))
		els, _ := b["elements"].([]any)
		for _, e := range els {
			el, _ := e.(map[string]any)
			if id, ok := el["action_id"].(string); ok {
				text, _ := el["text"].(map[string]any)
				label, _ := text["text"].(string)
				out = append(out, "  "+id+" "+label)
			}
		}
	}
	return out
}

// The Block Kit JSON docs/notifications.md shows for a SELECT_ONE
// question is the message QuestionBlocks builds for such a question: the
// same blocks, controls and button texts.
func TestDocumentedBlockKitIsWhatQuestionBlocksBuilds(t *testing.T) {
	t.Parallel()
	exp := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	j := &askonce.Job{ID: "0195d3c1-0000-7000-8000-000000000001", TenantID: "default", Title: "Hot frozen cheese", Goal: "hot frozen cheese",
		Question: &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Should the cheese be hot or frozen?", Options: []string{"hot", "frozen"},
			AllowOther: true, Default: "hot", ExpiresAt: &exp}}
	raw, err := json.Marshal(QuestionBlocks(j, "https://askonce.example.com/a/Zq3"))
	if err != nil {
		t.Fatal(err)
	}
	var built []map[string]any
	if err := json.Unmarshal(raw, &built); err != nil {
		t.Fatal(err)
	}
	got, want := shape(built), shape(docBlocks(t, "The Block Kit JSON of a SELECT_ONE question"))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("docs/notifications.md shows blocks QuestionBlocks no longer builds:\nbuilt:\n%s\ndocumented:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
