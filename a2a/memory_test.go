package a2a_test

import (
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
)

// projectText is a text goal with askonce metadata naming the project.
func projectText(contextID, text, project string) *sdk.SendMessageRequest {
	p := userText(contextID, "", text)
	p.Message.Metadata = map[string]any{"askonce": map[string]any{"memory": map[string]any{"scope": "project", "project": project}}}
	return p
}

// A2A metadata askonce.memory shares a project's answers: the second
// agent's task completes without input-required and its metadata names
// the memory; another tenant's identical task asks.
func TestMetadataMemoryProjectAnswersTheSecondAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.client(keyA), e.client(keyB)
	first := send(t, a, projectText("agent-1", "hot frozen cheese", "shop"))
	if first.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("first task %s, want input-required", first.Status.State)
	}
	if done := send(t, a, userText("agent-1", first.ID, "frozen")); done.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("answered task %s, want completed", done.Status.State)
	}
	second := send(t, a, projectText("agent-2", "hot frozen cheese", "shop"))
	meta, _ := second.Metadata["askonce"].(map[string]any)
	mem, _ := meta["memory"].(map[string]any)
	if second.Status.State != sdk.TaskStateCompleted || mem["jobId"] != string(first.ID) || mem["project"] != "shop" {
		t.Fatalf("second task %s with metadata %v, want completed from the first task's memory", second.Status.State, meta)
	}
	note, _ := meta["answeredFrom"].(string)
	if !strings.HasPrefix(note, `answered from project "shop" memory`) || !strings.Contains(textPart(second.Status.Message.Parts), note) {
		t.Errorf("answeredFrom %q; status text %q", note, textPart(second.Status.Message.Parts))
	}
	if other := send(t, b, projectText("agent-3", "hot frozen cheese", "shop")); other.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("another tenant's task %s, want input-required", other.Status.State)
	}
}

// An answer with metadata askonce.dontRemember is not remembered.
func TestMetadataDontRememberKeepsTheAnswerOutOfMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.client(keyA)
	first := send(t, a, projectText("agent-1", "hot frozen cheese", "shop"))
	answer := userText("agent-1", first.ID, "frozen")
	answer.Message.Metadata = map[string]any{"askonce": map[string]any{"dontRemember": true}}
	send(t, a, answer)
	if second := send(t, a, projectText("agent-2", "hot frozen cheese", "shop")); second.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("second task %s, want input-required: the answer was not to be remembered", second.Status.State)
	}
}
