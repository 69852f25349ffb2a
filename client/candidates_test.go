package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/askonce/askonce/client"
)

// CreateRequest.Candidates reaches the job, which shows them on create and
// on Get; a bad entry is an invalid error naming it.
func TestCreateCarriesCandidates(t *testing.T) {
	t.Parallel()
	c, _ := newAPI(t)
	ctx := context.Background()
	names := []string{"staging", "production"}
	j, err := c.Create(ctx, client.CreateRequest{Goal: "write the README then add tests", Candidates: names})
	if err != nil || !slices.Equal(j.Candidates, names) {
		t.Fatalf("create: candidates %q, %v; want %q", j.Candidates, err, names)
	}
	d, err := c.Get(ctx, j.JobID)
	if err != nil || !slices.Equal(d.Candidates, names) {
		t.Fatalf("get: candidates %q, %v; want %q", d.Candidates, err, names)
	}
	_, err = c.Create(ctx, client.CreateRequest{Goal: "write the README", Candidates: []string{"ok", "tab\there"}})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != client.CodeInvalid || ce.Message != "candidates[1] holds a control character" {
		t.Fatalf("bad candidate: %v, want invalid naming candidates[1]", err)
	}
}
