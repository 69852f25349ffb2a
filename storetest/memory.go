package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// remembered writes, as the answer of a new job of tenant in session,
// the entry answer to question kept at scope (in project), expiring
// after ttl, at time at.
type remembered struct {
	tenant, session, project string
	scope                    askonce.MemoryScope
	question, answer         string
	at                       time.Time
	ttl                      time.Duration
}

func (r remembered) write(t *testing.T, s askonce.Store) *askonce.Job {
	t.Helper()
	j := NewJob(r.tenant)
	if r.session != "" {
		j.SessionID = r.session
	}
	j = create(t, s, j)
	if r.at.IsZero() {
		r.at = Now()
	}
	if r.ttl == 0 {
		r.ttl = time.Hour
	}
	h := &askonce.HistoryEntry{Scope: r.scope, Project: r.project, QuestionHash: askonce.QuestionHash(r.question),
		Type: askonce.QuestionFreeText, Question: r.question, Answer: r.answer, At: r.at}
	if r.scope != askonce.MemorySession {
		exp := r.at.Add(r.ttl)
		h.ExpiresAt = &exp
	}
	update(t, s, &askonce.Change{Job: j, History: h})
	return j
}

// lookup returns the answer LookupHistory finds for q, "" for ENOTFOUND.
func lookup(t *testing.T, s askonce.Store, q askonce.HistoryQuery) (answer string, scope askonce.MemoryScope) {
	t.Helper()
	if q.Now.IsZero() {
		q.Now = Now()
	}
	h, err := s.LookupHistory(t.Context(), q)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return "", ""
	}
	if err != nil {
		t.Fatalf("LookupHistory(%+v): %v", q, err)
	}
	return h.Answer, h.Scope
}

var memoryTests = []test{
	{"Rule5_LookupHistoryOfAnUnansweredQuestionIsNotFound", func(t *testing.T, s askonce.Store) {
		// Of the session alone, and reaching its project and tenant: the
		// error callers see, code and message.
		tenant := NewTenant()
		j := create(t, s, NewJob(tenant))
		hash := askonce.QuestionHash("which region?")
		for _, q := range []askonce.HistoryQuery{
			{TenantID: tenant, SessionID: j.SessionID, QuestionHash: hash, Now: Now()},
			{TenantID: tenant, SessionID: j.SessionID, QuestionHash: hash, Project: "api", Tenant: true, Now: Now()},
		} {
			h, err := s.LookupHistory(t.Context(), q)
			e := wantCode(t, "LookupHistory", err, askonce.ENOTFOUND)
			if h != nil {
				t.Fatalf("LookupHistory(%+v) = %+v with ENOTFOUND", q, h)
			}
			want := "session " + j.SessionID + " has no answer to question " + hash
			if e.Message != want || askonce.ErrorMessage(err) != want || err.Error() != "askonce: not_found: "+want {
				t.Fatalf("LookupHistory(%+v): message %q (%v), want %q", q, e.Message, err, want)
			}
		}
	}},
	{"FieldHistoryIsKeptEachUnderItsOwnQuestion", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		j := create(t, s, NewJob(tenant))
		at := Now()
		exp := at.Add(time.Hour)
		entry := func(scope askonce.MemoryScope, q, a string) askonce.HistoryEntry {
			h := askonce.HistoryEntry{TenantID: tenant, SessionID: j.SessionID, Scope: scope, QuestionHash: askonce.QuestionHash(q),
				Type: askonce.QuestionFreeText, Question: q, Answer: a, JobID: j.ID, At: at}
			if scope == askonce.MemoryProject {
				h.Project, h.ExpiresAt = "api", &exp
			}
			return h
		}
		whole := entry(askonce.MemoryProject, "Before the deploy:", `{"environment":"staging","replicas":"3"}`)
		update(t, s, &askonce.Change{Job: j, History: &whole, FieldHistory: []askonce.HistoryEntry{
			entry(askonce.MemoryProject, "Which environment?", "staging"),
			entry(askonce.MemoryProject, "How many replicas?", "3"),
		}})
		for q, want := range map[string]string{"Before the deploy:": whole.Answer, "Which environment?": "staging", "How many replicas?": "3"} {
			hq := askonce.HistoryQuery{TenantID: tenant, SessionID: j.SessionID, QuestionHash: askonce.QuestionHash(q)}
			if got, _ := lookup(t, s, hq); got != want {
				t.Errorf("session answer to %q is %q, want %q", q, got, want)
			}
			hq.SessionID, hq.Project = "another", "api"
			if got, scope := lookup(t, s, hq); got != want || scope != askonce.MemoryProject {
				t.Errorf("project answer to %q is %q (%s), want %q", q, got, scope, want)
			}
		}
	}},
	{"FilledFieldsOfAQuestionAreKept", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		j := create(t, s, NewJob(tenant))
		next := j.Clone()
		fields := []askonce.QuestionField{
			{Name: "environment", Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}},
			{Name: "region", Type: askonce.QuestionSelectOne, Text: "Which region?", Options: []string{"eu", "us"}},
		}
		next.Status, next.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
		next.Question = &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which region?", Options: []string{"eu", "us"},
			Filled: &askonce.FilledFields{Fields: fields, Values: map[string]askonce.Value{"environment": askonce.OptionValue("production")}}}
		update(t, s, &askonce.Change{Job: next})
		got := get(t, s, tenant, j.ID)
		if got.Question == nil || !reflect.DeepEqual(got.Question.Filled, next.Question.Filled) || len(got.Question.Fields) != 0 {
			t.Fatalf("question %+v filled %+v, want filled %+v", got.Question, got.Question.Filled, next.Question.Filled)
		}
	}},
	{"LookupGoesSessionThenProjectThenTenant", func(t *testing.T, s askonce.Store) {
		tenant, q := NewTenant(), "Deploy to staging or production?"
		hash := askonce.QuestionHash(q)
		tj := remembered{tenant: tenant, scope: askonce.MemoryTenant, question: q, answer: "tenant"}.write(t, s)
		pj := remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "project"}.write(t, s)
		sj := remembered{tenant: tenant, scope: askonce.MemorySession, question: q, answer: "session"}.write(t, s)
		for _, c := range []struct {
			name      string
			q         askonce.HistoryQuery
			want      string
			wantScope askonce.MemoryScope
		}{
			{"the session's own answer first", askonce.HistoryQuery{SessionID: sj.SessionID, Project: "api", Tenant: true}, "session", askonce.MemorySession},
			{"then the project's", askonce.HistoryQuery{SessionID: "new", Project: "api", Tenant: true}, "project", askonce.MemoryProject},
			{"then the tenant's", askonce.HistoryQuery{SessionID: "new", Project: "web", Tenant: true}, "tenant", askonce.MemoryTenant},
			{"the tenant's only when asked for", askonce.HistoryQuery{SessionID: "new", Project: "web"}, "", ""},
			{"the project's only when named", askonce.HistoryQuery{SessionID: "new"}, "", ""},
			{"the project's session has its history", askonce.HistoryQuery{SessionID: pj.SessionID}, "project", askonce.MemorySession},
			{"the tenant job's session has its history", askonce.HistoryQuery{SessionID: tj.SessionID, Project: "api"}, "tenant", askonce.MemorySession},
		} {
			c.q.TenantID, c.q.QuestionHash = tenant, hash
			if got, scope := lookup(t, s, c.q); got != c.want || scope != c.wantScope {
				t.Errorf("%s: found %q in %q, want %q in %q", c.name, got, scope, c.want, c.wantScope)
			}
		}
	}},
	{"ExpiredEntriesAreNeitherFoundNorListed", func(t *testing.T, s askonce.Store) {
		tenant, q, now := NewTenant(), "Which region?", Now()
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "eu", at: now, ttl: time.Hour}.write(t, s)
		query := askonce.HistoryQuery{TenantID: tenant, SessionID: "new", Project: "api", QuestionHash: askonce.QuestionHash(q)}
		query.Now = now.Add(59 * time.Minute)
		if got, _ := lookup(t, s, query); got != "eu" {
			t.Errorf("before its TTL ends: found %q, want eu", got)
		}
		query.Now = now.Add(time.Hour)
		if got, _ := lookup(t, s, query); got != "" {
			t.Errorf("once its TTL ended: found %q, want nothing", got)
		}
		list, err := s.Memory(t.Context(), askonce.MemoryFilter{TenantID: tenant, Scope: askonce.MemoryProject, Project: "api", Now: now.Add(time.Hour)})
		if err != nil || len(list) != 0 {
			t.Errorf("memory listed once expired: %+v, %v; want none", list, err)
		}
	}},
	{"ListsAProjectsEntriesNewestFirstWithExpiryAndUses", func(t *testing.T, s askonce.Store) {
		tenant, now := NewTenant(), Now()
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: "Old?", answer: "yes", at: now.Add(-time.Minute)}.write(t, s)
		newest := remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: "New?", answer: "no", at: now}.write(t, s)
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "web", question: "Other?", answer: "no", at: now}.write(t, s)
		remembered{tenant: tenant, scope: askonce.MemoryTenant, question: "Tenant?", answer: "no", at: now}.write(t, s)
		used := get(t, s, tenant, newest.ID)
		used.Title = "used"
		update(t, s, &askonce.Change{Job: used, Recalled: &askonce.MemoryRef{Scope: askonce.MemoryProject, Project: "api", QuestionHash: askonce.QuestionHash("New?")}})
		list, err := s.Memory(t.Context(), askonce.MemoryFilter{TenantID: tenant, Scope: askonce.MemoryProject, Project: "api", Now: now})
		if err != nil || len(list) != 2 {
			t.Fatalf("project api's memory: %+v, %v; want two entries", list, err)
		}
		want := askonce.HistoryEntry{TenantID: tenant, SessionID: newest.SessionID, Scope: askonce.MemoryProject, Project: "api",
			QuestionHash: askonce.QuestionHash("New?"), Type: askonce.QuestionFreeText, Question: "New?", Answer: "no",
			JobID: newest.ID, At: now, Uses: 1}
		exp := now.Add(time.Hour)
		want.ExpiresAt = &exp
		got := list[0]
		got.ExpiresAt = normTimePtr(got.ExpiresAt)
		checkEntry(t, want, got)
		if list[1].Question != "Old?" || list[1].Uses != 0 {
			t.Errorf("second entry %+v, want the older question, unused", list[1])
		}
		ten, err := s.Memory(t.Context(), askonce.MemoryFilter{TenantID: tenant, Scope: askonce.MemoryTenant, Now: now})
		if err != nil || len(ten) != 1 || ten[0].Question != "Tenant?" {
			t.Errorf("tenant memory: %+v, %v; want the one tenant entry", ten, err)
		}
	}},
	{"ForgottenEntriesAreNotFound", func(t *testing.T, s askonce.Store) {
		tenant, q := NewTenant(), "Overwrite the config?"
		hash := askonce.QuestionHash(q)
		sj := remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "yes"}.write(t, s)
		ctx := t.Context()
		if err := s.Forget(ctx, askonce.MemoryKey{TenantID: tenant, Scope: askonce.MemoryProject, Project: "api", QuestionHash: hash}); err != nil {
			t.Fatalf("Forget: %v", err)
		}
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: "new", Project: "api", QuestionHash: hash}); got != "" {
			t.Errorf("the forgotten project entry is found: %q", got)
		}
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: sj.SessionID, QuestionHash: hash}); got != "yes" {
			t.Errorf("forgetting the project's entry took the session's: found %q, want yes", got)
		}
		wantCode(t, "forgetting again", s.Forget(ctx, askonce.MemoryKey{TenantID: tenant, Scope: askonce.MemoryProject, Project: "api", QuestionHash: hash}), askonce.ENOTFOUND)
		if err := s.Forget(ctx, askonce.MemoryKey{TenantID: tenant, Scope: askonce.MemorySession, SessionID: sj.SessionID, QuestionHash: hash}); err != nil {
			t.Fatalf("Forget of the session's entry: %v", err)
		}
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: sj.SessionID, QuestionHash: hash}); got != "" {
			t.Errorf("the forgotten session entry is found: %q", got)
		}
	}},
	{"MemoryOfOneTenantIsInvisibleToAnother", func(t *testing.T, s askonce.Store) {
		tenant, other, q := NewTenant(), NewTenant(), "Which database?"
		hash := askonce.QuestionHash(q)
		remembered{tenant: tenant, scope: askonce.MemoryTenant, question: q, answer: "postgres"}.write(t, s)
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "sqlite"}.write(t, s)
		ctx := t.Context()
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: other, SessionID: "new", Project: "api", Tenant: true, QuestionHash: hash}); got != "" {
			t.Errorf("the other tenant finds %q", got)
		}
		for _, sc := range []askonce.MemoryScope{askonce.MemoryProject, askonce.MemoryTenant} {
			list, err := s.Memory(ctx, askonce.MemoryFilter{TenantID: other, Scope: sc, Project: "api", Now: Now()})
			if err != nil || len(list) != 0 {
				t.Errorf("the other tenant lists %s memory %+v (%v), want none", sc, list, err)
			}
			wantCode(t, "the other tenant forgetting", s.Forget(ctx, askonce.MemoryKey{TenantID: other, Scope: sc, Project: "api", QuestionHash: hash}), askonce.ENOTFOUND)
		}
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: "new", Project: "api", QuestionHash: hash}); got != "sqlite" {
			t.Errorf("after the other tenant's forget the owner finds %q, want sqlite", got)
		}
		// A session's history too: the other tenant naming the session
		// forgets nothing.
		sj := remembered{tenant: tenant, scope: askonce.MemorySession, question: q, answer: "mysql"}.write(t, s)
		wantCode(t, "the other tenant forgetting the session's answer", s.Forget(ctx, askonce.MemoryKey{TenantID: other, Scope: askonce.MemorySession, SessionID: sj.SessionID, QuestionHash: hash}), askonce.ENOTFOUND)
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: sj.SessionID, QuestionHash: hash}); got != "mysql" {
			t.Errorf("after the other tenant's forget the session finds %q, want mysql", got)
		}
	}},
	{"AnOlderAnswerDoesNotReplaceANewerOne", func(t *testing.T, s askonce.Store) {
		tenant, q, now := NewTenant(), "Which branch?", Now()
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "new", at: now}.write(t, s)
		remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q, answer: "old", at: now.Add(-time.Second)}.write(t, s)
		if got, _ := lookup(t, s, askonce.HistoryQuery{TenantID: tenant, SessionID: "new", Project: "api", QuestionHash: askonce.QuestionHash(q)}); got != "new" {
			t.Errorf("found %q, want the newer answer", got)
		}
	}},
}

// RacingFirstAnswersKeepOneEntryTheNewest: replicas writing the first
// answer to one project question at once leave one entry, the latest.
func racingFirstAnswers(t *testing.T, a, b askonce.Store) {
	tenant, q, now := NewTenant(), "Deploy where?", Now()
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			remembered{tenant: tenant, scope: askonce.MemoryProject, project: "api", question: q,
				answer: fmt.Sprintf("answer %d", i), at: now.Add(time.Duration(i) * time.Millisecond)}.write(t, s)
		})
	}
	wg.Wait()
	for name, s := range map[string]askonce.Store{"first": a, "second": b} {
		list, err := s.Memory(t.Context(), askonce.MemoryFilter{TenantID: tenant, Scope: askonce.MemoryProject, Project: "api", Now: now})
		if err != nil || len(list) != 1 || list[0].Answer != fmt.Sprintf("answer %d", n-1) {
			t.Errorf("the %s store lists %+v (%v), want one entry, the latest answer %d", name, list, err, n-1)
		}
	}
}
