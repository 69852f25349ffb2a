package mcp_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	"github.com/askonce/askonce/sqlite"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// downStore is a real store that, while down is set, cannot be reached:
// every read and write is EUNAVAILABLE, as a PostgreSQL outage is.
type downStore struct {
	askonce.Store
	down atomic.Bool
}

var errDown = askonce.Unavailable(errors.New("connection refused"))

func (s *downStore) CreateJob(ctx context.Context, c *askonce.Change) error {
	if s.down.Load() {
		return errDown
	}
	return s.Store.CreateJob(ctx, c)
}

func (s *downStore) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Store.GetJob(ctx, tenant, id)
}

func (s *downStore) ListJobs(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Store.ListJobs(ctx, tenant, f)
}

func (s *downStore) UpdateJob(ctx context.Context, c *askonce.Change) error {
	if s.down.Load() {
		return errDown
	}
	return s.Store.UpdateJob(ctx, c)
}

// While askonce's store cannot be reached, every tool answers a tool
// error saying it is unavailable and to retry (not an internal error),
// and a job resource read is the JSON-RPC error CodeUnavailable; once the
// store is back the same calls succeed.
func TestTools_StoreUnavailableIsARetryableErrorNotAnInternalOne(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds := &downStore{Store: st}
	eng := &askonce.Engine{Store: ds, Interpreter: askonce.InterpreterFunc(interpret), LinkSecret: []byte("test link secret, 32 bytes long!")}
	t.Cleanup(func() { eng.Drain(context.Background()) })
	e := &env{t: t, engine: eng, server: mcp.New(mcp.Config{Engine: eng, PollInterval: 10 * time.Millisecond})}
	cs := e.connect(clientOptions{version: versions[0]})
	var job mcp.JobResult
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select"}, &job)

	ds.down.Store(true)
	for _, c := range []struct {
		tool string
		args any
	}{
		{mcp.ToolPlan, map[string]any{"goal": "ask select"}},
		{mcp.ToolAskUser, moduleQuestion},
		{mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": "billing"}},
		{mcp.ToolGetJob, map[string]any{"jobId": job.JobID}},
		{mcp.ToolListPending, map[string]any{}},
	} {
		msg := toolError(t, cs, c.tool, c.args)
		if !strings.HasPrefix(msg, "unavailable (retryable): the database cannot be reached") || !strings.Contains(msg, "retry the same call") {
			t.Errorf("%s while the store is down: %q; want an unavailable error that says to retry", c.tool, msg)
		}
	}
	_, err = cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "askonce://jobs/" + job.JobID})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeUnavailable || !strings.Contains(je.Message, "retry") {
		t.Errorf("resource read while the store is down: %v; want JSON-RPC error %d saying retry", err, mcp.CodeUnavailable)
	}

	ds.down.Store(false)
	call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": "billing"}, &job)
	if job.Status != string(askonce.StatusSuccess) {
		t.Fatalf("the answer once the store is back: %+v", job)
	}
}
