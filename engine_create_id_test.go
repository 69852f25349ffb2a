package askonce_test

import (
	"testing"

	"github.com/askonce/askonce"
	"github.com/google/uuid"
)

// A caller may choose the new job's id (a UUID), so that it knows the id
// before the job is stored; anything else is EINVALID, and an id in use
// is ECONFLICT.
func testCreateCallerChosenIDIsAUUIDUsedOnce(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	id := uuid.Must(uuid.NewV7()).String()
	j, err := e.Create(ctx, askonce.CreateRequest{ID: id, Goal: "write the README"})
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != id {
		t.Fatalf("job id %s, want the chosen %s", j.ID, id)
	}
	if _, err := e.Create(ctx, askonce.CreateRequest{ID: id, Goal: "write the README"}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("a second job with the same id: %v, want ECONFLICT", err)
	}
	for _, bad := range []string{"job-1", "urn:uuid:" + id, "{" + id + "}", id[:35]} {
		if _, err := e.Create(ctx, askonce.CreateRequest{ID: bad, Goal: "write the README"}); askonce.ErrorCode(err) != askonce.EINVALID {
			t.Errorf("id %q: %v, want EINVALID", bad, err)
		}
	}
}
