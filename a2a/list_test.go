package a2a_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
)

// ListTasks lists only the caller's tenant's tasks, by context and by
// state, a page at a time, newest first; totalSize counts the matches of
// the filter, not the page.
func TestListTasksByContextAndStateIsPagedAndOnlyTheCallersTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.client(keyA), e.client(keyB)
	ctx := context.Background()
	// In context one: three asking tasks, one answered, one cancelled.
	var ids []sdk.TaskID
	for range 3 {
		ids = append(ids, send(t, a, userText("one", "", "hot frozen cheese")).ID)
	}
	send(t, a, userText("one", ids[0], "hot"))
	if _, err := a.CancelTask(ctx, &sdk.CancelTaskRequest{ID: ids[1]}); err != nil {
		t.Fatal(err)
	}
	send(t, a, userText("two", "", "hot frozen cheese"))
	send(t, b, userText("one", "", "hot frozen cheese"))

	list := func(c interface {
		ListTasks(context.Context, *sdk.ListTasksRequest) (*sdk.ListTasksResponse, error)
	}, req *sdk.ListTasksRequest) (ids []sdk.TaskID, total int) {
		t.Helper()
		for {
			page, err := c.ListTasks(ctx, req)
			if err != nil {
				t.Fatalf("ListTasks %+v: %v", req, err)
			}
			if len(page.Tasks) > max(req.PageSize, 1) && req.PageSize > 0 {
				t.Fatalf("page of %d tasks; asked for %d", len(page.Tasks), req.PageSize)
			}
			for _, task := range page.Tasks {
				ids = append(ids, task.ID)
			}
			total = page.TotalSize
			if page.NextPageToken == "" {
				return ids, total
			}
			next := *req
			next.PageToken = page.NextPageToken
			req = &next
		}
	}
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	if got, total := list(a, &sdk.ListTasksRequest{ContextID: "one", PageSize: 2}); !slices.Equal(got, newest) || total != 3 {
		t.Errorf("context one, pages of 2: %v (total %d); want %v newest first, total 3", got, total, newest)
	}
	for _, c := range []struct {
		state sdk.TaskState
		want  []sdk.TaskID
	}{
		{sdk.TaskStateCompleted, ids[:1]},
		{sdk.TaskStateCanceled, ids[1:2]},
		{sdk.TaskStateInputRequired, ids[2:]},
		{sdk.TaskStateFailed, nil},
		{sdk.TaskStateRejected, nil},
	} {
		if got, total := list(a, &sdk.ListTasksRequest{ContextID: "one", Status: c.state, PageSize: 1}); !slices.Equal(got, c.want) || total != len(c.want) {
			t.Errorf("context one, %s: %v (total %d); want %v", c.state, got, total, c.want)
		}
	}
	if got, total := list(a, &sdk.ListTasksRequest{}); len(got) != 4 || total != 4 {
		t.Errorf("tenant a's tasks: %v (total %d); want its 4", got, total)
	}
	if got, _ := list(b, &sdk.ListTasksRequest{ContextID: "one"}); len(got) != 1 || slices.Contains(ids, got[0]) {
		t.Errorf("tenant b's tasks in context one: %v; want only its own one", got)
	}
	if _, err := a.ListTasks(ctx, &sdk.ListTasksRequest{PageToken: "not-a-token"}); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Errorf("a page token this endpoint never gave: %v; want invalid params", err)
	}
}

// ListTasks refuses a page token or a page size it would not serve, as
// invalid params: a token past the statuses of its filter ("1:" with no
// state, "3:" for failed, which lists three statuses), one that is not a
// token, and a page size outside 1 to 100. At the edges it serves.
func TestListTasksRefusesAPageTokenOrSizeItWouldNotServe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.client(keyA)
	ctx := context.Background()
	send(t, a, userText("one", "", "hot frozen cheese"))
	for _, req := range []*sdk.ListTasksRequest{
		{PageToken: "1:"},
		{PageToken: "1:x"},
		{Status: sdk.TaskStateFailed, PageToken: "3:"},
		{PageToken: "-1:"},
		{PageToken: "x:"},
		{PageSize: 101},
		{PageSize: 1000},
		{PageSize: -1},
	} {
		if page, err := a.ListTasks(ctx, req); !errors.Is(err, sdk.ErrInvalidParams) {
			t.Errorf("ListTasks %+v: %+v, %v; want invalid params", req, page, err)
		}
	}
	for _, req := range []*sdk.ListTasksRequest{
		{PageToken: "0:"},
		{Status: sdk.TaskStateFailed, PageToken: "2:"},
		{PageSize: 100},
		{PageSize: 1},
	} {
		page, err := a.ListTasks(ctx, req)
		if err != nil {
			t.Errorf("ListTasks %+v: %v; want a page", req, err)
			continue
		}
		if req.PageSize > 0 && page.PageSize != req.PageSize {
			t.Errorf("ListTasks %+v: page size %d; want %d", req, page.PageSize, req.PageSize)
		}
	}
}
