package storetest

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// newestFirst sorts jobs as ListJobs returns them and gives their ids.
func newestFirst(jobs []*askonce.Job) []string {
	jobs = slices.Clone(jobs)
	slices.SortFunc(jobs, func(a, b *askonce.Job) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// listAll pages through ListJobs and returns the ids in order, failing
// the test if a page is larger than the limit.
func listAll(t *testing.T, s askonce.Store, tenant string, f askonce.JobFilter) []string {
	t.Helper()
	var ids []string
	for range 1000 {
		page, err := s.ListJobs(t.Context(), tenant, f)
		if err != nil {
			t.Fatalf("list jobs %+v: %v", f, err)
		}
		if len(page.Jobs) > f.PageLimit() {
			t.Fatalf("page of %d jobs, limit %d", len(page.Jobs), f.PageLimit())
		}
		for _, j := range page.Jobs {
			if j.TenantID != tenant {
				t.Errorf("listed job %s of tenant %s", j.ID, j.TenantID)
			}
			if f.Status != "" && j.Status != f.Status {
				t.Errorf("listed job %s in status %s, filter %s", j.ID, j.Status, f.Status)
			}
			if f.SessionID != "" && j.SessionID != f.SessionID {
				t.Errorf("listed job %s of session %s, filter %s", j.ID, j.SessionID, f.SessionID)
			}
			ids = append(ids, j.ID)
		}
		if page.NextCursor == "" {
			return ids
		}
		f.Cursor = page.NextCursor
	}
	t.Fatal("paging does not end")
	return nil
}

// createMany creates n jobs of tenant, made by mk, whose creation times
// come in runs of three equal ones so that ties are ordered by id.
func createMany(t *testing.T, s askonce.Store, tenant string, n int, mk func(i int, j *askonce.Job)) []*askonce.Job {
	t.Helper()
	base := Now().Add(-time.Hour)
	jobs := make([]*askonce.Job, n)
	for i := range n {
		j := NewJob(tenant)
		j.CreatedAt = base.Add(time.Duration(i/3) * time.Millisecond)
		if mk != nil {
			mk(i, j)
		}
		jobs[i] = create(t, s, j)
	}
	return jobs
}

var listTests = []test{
	{"PagesReturnEveryJobOnceNewestFirst", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		jobs := createMany(t, s, tenant, 23, nil)
		createMany(t, s, NewTenant(), 4, nil) // not listed
		got := listAll(t, s, tenant, askonce.JobFilter{Limit: 5})
		if want := newestFirst(jobs); !slices.Equal(got, want) {
			t.Errorf("listed\n%v\nwant\n%v", got, want)
		}
	}},
	{"ListedJobsAreWhole", func(t *testing.T, s askonce.Store) {
		j := create(t, s, FullJob(NewTenant()))
		page, err := s.ListJobs(t.Context(), j.TenantID, askonce.JobFilter{})
		if err != nil || len(page.Jobs) != 1 || page.NextCursor != "" {
			t.Fatalf("list: %+v, %v; want one job on one page", page, err)
		}
		checkJob(t, "listed job", j, page.Jobs[0])
	}},
	{"CursorDoesNotRepeatOrSkipWhenJobsAreAdded", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		jobs := createMany(t, s, tenant, 6, nil)
		page, err := s.ListJobs(t.Context(), tenant, askonce.JobFilter{Limit: 3})
		if err != nil {
			t.Fatalf("first page: %v", err)
		}
		create(t, s, NewJob(tenant)) // newer than all: belongs before page one
		rest := listAll(t, s, tenant, askonce.JobFilter{Limit: 3, Cursor: page.NextCursor})
		var got []string
		for _, j := range page.Jobs {
			got = append(got, j.ID)
		}
		got = append(got, rest...)
		if want := newestFirst(jobs); !slices.Equal(got, want) {
			t.Errorf("listed\n%v\nwant\n%v", got, want)
		}
	}},
	{"FiltersByStatus", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		statuses := []askonce.Status{askonce.StatusPlanning, askonce.StatusPending, askonce.StatusSuccess}
		jobs := createMany(t, s, tenant, 12, func(i int, j *askonce.Job) { j.Status = statuses[i%3] })
		for _, st := range statuses {
			var want []*askonce.Job
			for _, j := range jobs {
				if j.Status == st {
					want = append(want, j)
				}
			}
			if got := listAll(t, s, tenant, askonce.JobFilter{Status: st, Limit: 3}); !slices.Equal(got, newestFirst(want)) {
				t.Errorf("status %s: listed %v, want %v", st, got, newestFirst(want))
			}
		}
		if got := listAll(t, s, tenant, askonce.JobFilter{Status: askonce.StatusExpired}); len(got) != 0 {
			t.Errorf("status expired: listed %v, want none", got)
		}
	}},
	{"FiltersBySessionAndStatus", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		sessions := []string{"alpha-" + NewID(), "beta-" + NewID()}
		jobs := createMany(t, s, tenant, 14, func(i int, j *askonce.Job) {
			j.SessionID = sessions[i%2]
			if i%4 < 2 {
				j.Status = askonce.StatusPending
			}
		})
		for _, sess := range sessions {
			var inSession, pending []*askonce.Job
			for _, j := range jobs {
				if j.SessionID == sess {
					inSession = append(inSession, j)
					if j.Status == askonce.StatusPending {
						pending = append(pending, j)
					}
				}
			}
			if got := listAll(t, s, tenant, askonce.JobFilter{SessionID: sess, Limit: 2}); !slices.Equal(got, newestFirst(inSession)) {
				t.Errorf("session %s: listed %v, want %v", sess, got, newestFirst(inSession))
			}
			f := askonce.JobFilter{SessionID: sess, Status: askonce.StatusPending, Limit: 1}
			if got := listAll(t, s, tenant, f); !slices.Equal(got, newestFirst(pending)) {
				t.Errorf("session %s, pending: listed %v, want %v", sess, got, newestFirst(pending))
			}
		}
	}},
	{"LimitDefaultsToFifty", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		createMany(t, s, tenant, 51, nil)
		page, err := s.ListJobs(t.Context(), tenant, askonce.JobFilter{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if len(page.Jobs) != 50 || page.NextCursor == "" {
			t.Fatalf("first page has %d jobs and cursor %q, want 50 and a cursor", len(page.Jobs), page.NextCursor)
		}
		page, err = s.ListJobs(t.Context(), tenant, askonce.JobFilter{Cursor: page.NextCursor})
		if err != nil || len(page.Jobs) != 1 || page.NextCursor != "" {
			t.Errorf("second page: %d jobs, cursor %q, %v; want the last job and no cursor", len(page.Jobs), page.NextCursor, err)
		}
	}},
	{"InvalidCursorIsInvalid", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		create(t, s, NewJob(tenant))
		for _, c := range []string{"!!! not a cursor !!!", "%%%", "\x00"} {
			_, err := s.ListJobs(t.Context(), tenant, askonce.JobFilter{Cursor: c})
			wantCode(t, "cursor "+c, err, askonce.EINVALID)
		}
	}},
	{"CursorOfAnIDNoJobCanHaveIsInvalid", func(t *testing.T, s askonce.Store) {
		// A well-formed cursor ("<created_at ns>.<job id>" in base64)
		// whose id holds a NUL byte or is not UTF-8: no job has it.
		tenant := NewTenant()
		create(t, s, NewJob(tenant))
		for _, id := range []string{"a\x00b", "\xff\xfe"} {
			c := base64.RawURLEncoding.EncodeToString([]byte("1." + id))
			_, err := s.ListJobs(t.Context(), tenant, askonce.JobFilter{Cursor: c})
			wantCode(t, fmt.Sprintf("cursor of id %q", id), err, askonce.EINVALID)
		}
	}},
}

var sweepTests = []test{
	{"DueQuestionsOfEveryTenantAndNoOthers", func(t *testing.T, s askonce.Store) {
		now := Now()
		a, b := NewTenant(), NewTenant()
		pending := func(tenant string, expires *time.Time) *askonce.Job {
			j := NewJob(tenant)
			j.Status = askonce.StatusPending
			j.ClarificationStatus = askonce.ClarificationAsked
			j.Question = &askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite?", Options: []string{"yes", "no"}, ExpiresAt: expires}
			return create(t, s, j)
		}
		ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
		due := []*askonce.Job{
			pending(a, ago(time.Minute)),
			pending(b, ago(time.Hour)),
			pending(b, ago(0)), // at now: due
		}
		pending(a, ago(-time.Hour)) // expires later
		pending(b, nil)             // never expires
		answered := NewJob(a)       // expired question, but no longer pending
		answered.ClarificationStatus = askonce.ClarificationAnswered
		answered.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Name?", ExpiresAt: ago(time.Hour)}
		create(t, s, answered)

		refs, err := s.DueQuestions(t.Context(), now, 100)
		if err != nil {
			t.Fatalf("due questions: %v", err)
		}
		checkRefs(t, "due questions", refs, due)
		refs, err = s.DueQuestions(t.Context(), now, 2)
		if err != nil || len(refs) != 2 {
			t.Errorf("due questions, limit 2: %v, %v; want 2", refs, err)
		}
	}},
	{"QuestionIsDueFromTheInstantItExpires", func(t *testing.T, s askonce.Store) {
		// Expired at or after expiresAt, as Step decides: not due one tick
		// before (a microsecond, the finest precision every store keeps),
		// due at the exact instant.
		at := Now().Add(time.Hour)
		j := NewJob(NewTenant())
		j.Status = askonce.StatusPending
		j.ClarificationStatus = askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite?", Options: []string{"yes", "no"}, ExpiresAt: &at}
		create(t, s, j)

		refs, err := s.DueQuestions(t.Context(), at.Add(-time.Microsecond), 100)
		if err != nil {
			t.Fatalf("due questions before expiresAt: %v", err)
		}
		checkRefs(t, "due questions one microsecond before expiresAt", refs, nil)
		refs, err = s.DueQuestions(t.Context(), at, 100)
		if err != nil {
			t.Fatalf("due questions at expiresAt: %v", err)
		}
		checkRefs(t, "due questions at expiresAt", refs, []*askonce.Job{j})
	}},
}

func checkRefs(t *testing.T, what string, got []askonce.JobRef, want []*askonce.Job) {
	t.Helper()
	w := make([]askonce.JobRef, len(want))
	for i, j := range want {
		w[i] = askonce.JobRef{TenantID: j.TenantID, ID: j.ID}
	}
	less := func(a, b askonce.JobRef) int {
		return cmp.Or(cmp.Compare(a.TenantID, b.TenantID), cmp.Compare(a.ID, b.ID))
	}
	got = slices.Clone(got)
	slices.SortFunc(got, less)
	slices.SortFunc(w, less)
	if !slices.Equal(got, w) {
		t.Errorf("%s: %v, want %v", what, got, w)
	}
}
