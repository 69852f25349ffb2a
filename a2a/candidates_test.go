package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
)

// A data part's candidates reach the job (the task's id is the job's, read
// back over the HTTP API); a bad one is invalid params naming it.
func TestDataPartCandidatesReachTheJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	names := []string{"staging", "production"}
	m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(map[string]any{"goal": "write the README then add tests", "candidates": names}))
	task := send(t, c, &sdk.SendMessageRequest{Message: m})

	req, err := http.NewRequest("GET", e.base+"/jobs/"+string(task.ID), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j struct {
		Candidates []string `json:"candidates"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || resp.StatusCode != http.StatusOK || !slices.Equal(j.Candidates, names) {
		t.Fatalf("GET the task's job: %d, candidates %q, %v; want %q", resp.StatusCode, j.Candidates, err, names)
	}

	for _, bad := range []struct {
		candidates any
		msg        string
	}{
		{[]string{"ok", "tab\there"}, "candidates[1] holds a control character"},
		{"staging", "the data part is not {goal, profile, files, candidates, hardCap}"},
	} {
		m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(map[string]any{"goal": "write the README", "candidates": bad.candidates}))
		_, err := c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: m})
		if !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("candidates %q: %v; want invalid params saying %q", bad.candidates, err, bad.msg)
		}
	}
}
