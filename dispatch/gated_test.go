package dispatch

import (
	"context"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// gatedChannel is a fakeChannel whose sends are queued when query, read
// in the change's transaction with the job's tenant and id, finds a row.
type gatedChannel struct {
	fakeChannel
	query string
}

func (c *gatedChannel) SendsTx(ctx context.Context, r askonce.TxReader, j *askonce.Job, ev askonce.QuestionEvent) ([]askonce.Send, error) {
	ok, err := r.(txReader).exists(ctx, c.query, j.TenantID, j.ID)
	if err != nil || !ok {
		return nil, err
	}
	return c.Sends(j, ev), nil
}

// A gated channel's read runs in the change's transaction (it sees the
// job pending before the ask commits), decides whether its sends are
// queued, and its failure fails the change: the job does not ask
// without the sends it should have queued.
func TestGatedChannelReadsInTheChangesTransaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		query string
		sends int
		fails bool
	}{
		// The job is pending only in the transaction that asks, until
		// it commits.
		{"SeesTheChangeUncommitted", `SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2 AND status = 'pending'`, 1, false},
		{"FindsNothing", `SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2 AND status = 'success'`, 0, false},
		{"FailsTheChange", `SELECT 1 FROM no_such_table WHERE a = $1 AND b = $2`, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ch := &gatedChannel{fakeChannel: fakeChannel{name: "gated", answer: func(askonce.Send) error { return nil }}, query: tc.query}
			st, eng := openChannelStack(t, ch)
			// Twice: the first read is prepared in its transaction; the
			// second may reuse the statement prepared after it.
			for range 2 {
				j, err := eng.Create(t.Context(), askonce.CreateRequest{Goal: "make cheese", Notify: &askonce.Recipients{Email: []string{"a@example.com"}}})
				if tc.fails {
					if err == nil || !strings.Contains(err.Error(), "gated sends of job") {
						t.Fatalf("create = %+v, %v; want the read's error", j, err)
					}
					page, err := st.ListJobs(t.Context(), "default", askonce.JobFilter{})
					if err != nil {
						t.Fatal(err)
					}
					for _, j := range page.Jobs {
						if j.Status == askonce.StatusPending {
							t.Errorf("job %s asks without its sends", j.ID)
						}
					}
					continue
				}
				if err != nil || j.Status != askonce.StatusPending {
					t.Fatalf("create: %+v, %v", j, err)
				}
				if n := riverRows(t, st, j.ID); n != tc.sends {
					t.Errorf("River rows of job %s: %d, want %d", j.ID, n, tc.sends)
				}
			}
		})
	}
}
