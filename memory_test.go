package askonce_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// clock is a settable engine clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memoryEngine is an engine with the rules interpreter on a real SQLite
// file and a clock the test moves.
func memoryEngine(t *testing.T) (*askonce.Engine, *clock) {
	t.Helper()
	e := newEngine(t, rulesInterpreter(t))
	c := &clock{t: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	e.Now = c.now
	return e, c
}

// agent creates the job of one agent: its own session, the given tenant
// and memory.
func agent(t *testing.T, e *askonce.Engine, tenant, session string, m askonce.Memory) *askonce.Job {
	t.Helper()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", TenantID: tenant, SessionID: session, Memory: m})
	if err != nil {
		t.Fatalf("create the job of session %s: %v", session, err)
	}
	return j
}

// answeredInProject has a first agent of tenant acme ask in project shop
// and a person answer frozen; it returns that first job.
func answeredInProject(t *testing.T, e *askonce.Engine, m askonce.Memory) *askonce.Job {
	t.Helper()
	first := agent(t, e, "acme", "agent-a", m)
	if first.Status != askonce.StatusPending {
		t.Fatalf("the first agent's job is %s, want pending with a question", first.Status)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "acme", ID: first.ID, Answer: askonce.TextAnswer("frozen")}); err != nil {
		t.Fatalf("answer: %v", err)
	}
	return first
}

var shop = askonce.Memory{Scope: askonce.MemoryProject, Project: "shop"}

func TestSecondAgentsIdenticalQuestionInTheSameProjectIsResolvedWithoutAsking(t *testing.T) {
	t.Parallel()
	e, c := memoryEngine(t)
	first := answeredInProject(t, e, shop)
	c.add(72 * time.Hour)
	second := agent(t, e, "acme", "agent-b", shop)
	if second.Status != askonce.StatusSuccess || second.AnswerSource != askonce.SourceHistory || second.Answer.String() != "frozen" {
		t.Fatalf("second agent's job: status %s, source %s, answer %q; want success from history with frozen", second.Status, second.AnswerSource, second.Answer)
	}
	want := askonce.MemoryRef{Scope: askonce.MemoryProject, Project: "shop", QuestionHash: askonce.QuestionHash(first.Question.Text), JobID: first.ID, At: c.now().Add(-72 * time.Hour)}
	if got := second.AnswerMemory; got == nil || *got != want {
		t.Fatalf("clarificationMemory %+v, want %+v", got, want)
	}
	if got, wantText := second.AnswerMemory.Describe(c.now()), `answered from project "shop" memory, 3 days ago, job `+first.ID; got != wantText {
		t.Errorf("described as %q, want %q", got, wantText)
	}
	types := eventTypes(t, e, second)
	if count(types, askonce.EventAsked) != 0 || count(types, askonce.EventAutoResolved) != 1 {
		t.Fatalf("second agent's events %v: want one auto_resolved and no asked", types)
	}
	// The audit trail keeps where the answer came from.
	evs, err := e.Events(ctx, "acme", second.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type != askonce.EventAutoResolved {
			continue
		}
		var d struct{ Memory *askonce.MemoryRef }
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Memory == nil || d.Memory.JobID != first.ID {
			t.Errorf("auto_resolved data %s, want the memory of job %s", ev.Data, first.ID)
		}
	}
	// The entry counts its use.
	list, err := e.Memory(ctx, askonce.MemoryFilter{TenantID: "acme", Scope: askonce.MemoryProject, Project: "shop"})
	if err != nil || len(list) != 1 || list[0].Uses != 1 || list[0].Answer != "frozen" {
		t.Errorf("project memory %+v (%v), want the one answer used once", list, err)
	}
}

func TestAnotherProjectOrTenantIsAsked(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	answeredInProject(t, e, shop)
	for _, c := range []struct {
		name, tenant string
		memory       askonce.Memory
	}{
		{"another project", "acme", askonce.Memory{Scope: askonce.MemoryProject, Project: "warehouse"}},
		{"another tenant, same project", "globex", shop},
		{"another tenant's tenant memory", "globex", askonce.Memory{Scope: askonce.MemoryTenant, Project: "shop"}},
		{"the default session memory", "acme", askonce.Memory{}},
		{"session scope naming the project", "acme", askonce.Memory{Scope: askonce.MemorySession, Project: "shop"}},
	} {
		j := agent(t, e, c.tenant, "agent-"+c.name, c.memory)
		if j.Status != askonce.StatusPending || j.AnswerMemory != nil {
			t.Errorf("%s: job is %s (memory %+v), want pending with the question", c.name, j.Status, j.AnswerMemory)
		}
	}
}

// A recall counts a use of its own project's entry only, not of the same
// question's entry in another project.
func TestRecallCountsAUseOnlyInItsProject(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	answeredInProject(t, e, shop)
	warehouse := askonce.Memory{Scope: askonce.MemoryProject, Project: "warehouse"}
	w := agent(t, e, "acme", "agent-w", warehouse)
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "acme", ID: w.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
		t.Fatal(err)
	}
	if j := agent(t, e, "acme", "agent-b", shop); j.AnswerSource != askonce.SourceHistory {
		t.Fatalf("second shop job: source %s, want history", j.AnswerSource)
	}
	for project, uses := range map[string]int64{"shop": 1, "warehouse": 0} {
		list, err := e.Memory(ctx, askonce.MemoryFilter{TenantID: "acme", Scope: askonce.MemoryProject, Project: project})
		if err != nil || len(list) != 1 || list[0].Uses != uses {
			t.Errorf("project %s memory %+v (%v), want one entry used %d times", project, list, err, uses)
		}
	}
}

func TestTenantMemoryAnswersEveryProjectOfTheTenant(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	first := answeredInProject(t, e, askonce.Memory{Scope: askonce.MemoryTenant})
	j := agent(t, e, "acme", "agent-b", askonce.Memory{Scope: askonce.MemoryTenant, Project: "warehouse"})
	if j.Status != askonce.StatusSuccess || j.AnswerMemory == nil || j.AnswerMemory.Scope != askonce.MemoryTenant || j.AnswerMemory.JobID != first.ID {
		t.Fatalf("job %s with memory %+v, want answered from the tenant memory of job %s", j.Status, j.AnswerMemory, first.ID)
	}
	if p := agent(t, e, "acme", "agent-c", shop); p.Status != askonce.StatusPending {
		t.Errorf("a project job reads the tenant memory: %s, want pending", p.Status)
	}
}

func TestExpiredMemoryIsAsked(t *testing.T) {
	t.Parallel()
	e, c := memoryEngine(t)
	m := shop
	m.TTL = "2h"
	answeredInProject(t, e, m)
	c.add(119 * time.Minute)
	if j := agent(t, e, "acme", "agent-b", m); j.Status != askonce.StatusSuccess {
		t.Fatalf("within the TTL the job is %s, want success from memory", j.Status)
	}
	c.add(time.Minute)
	if j := agent(t, e, "acme", "agent-c", m); j.Status != askonce.StatusPending {
		t.Fatalf("once the TTL ended the job is %s, want pending", j.Status)
	}
}

func TestForgottenMemoryIsAsked(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	first := answeredInProject(t, e, shop)
	key := askonce.MemoryKey{TenantID: "globex", Scope: askonce.MemoryProject, Project: "shop", QuestionHash: askonce.QuestionHash(first.Question.Text)}
	if err := e.Forget(ctx, key); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Fatalf("another tenant forgets: %v, want not_found", err)
	}
	if j := agent(t, e, "acme", "agent-b", shop); j.Status != askonce.StatusSuccess {
		t.Fatalf("after another tenant's forget the job is %s, want success from memory", j.Status)
	}
	key.TenantID = "acme"
	if err := e.Forget(ctx, key); err != nil {
		t.Fatalf("forget: %v", err)
	}
	if j := agent(t, e, "acme", "agent-c", shop); j.Status != askonce.StatusPending {
		t.Fatalf("after forget the job is %s, want pending", j.Status)
	}
}

func TestRememberedAnswerThatNoLongerFitsTheOptionsIsAsked(t *testing.T) {
	t.Parallel()
	deploy := func(options string) func(*askonce.Request) (*askonce.Response, error) {
		return reply(`{"question":{"type":"SELECT_ONE","text":"Deploy where?","options":`+options+`}}`, u1)
	}
	s := scripted(deploy(`["staging","production"]`), reply(planRaw, u1), deploy(`["production","canary"]`))
	e := newEngine(t, s)
	first, err := e.Create(ctx, askonce.CreateRequest{Goal: "deploy it", SessionID: "a", Memory: shop})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: first.ID, Answer: askonce.TextAnswer("staging")}); err != nil {
		t.Fatalf("answer: %v", err)
	}
	second, err := e.Create(ctx, askonce.CreateRequest{Goal: "deploy it", SessionID: "b", Memory: shop})
	if err != nil {
		t.Fatal(err)
	}
	if second.Status != askonce.StatusPending || second.AnswerSource != "" {
		t.Fatalf("with staging no longer an option the job is %s (source %q), want pending", second.Status, second.AnswerSource)
	}
}

func TestFreshJobIsAskedDespiteMemory(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	answeredInProject(t, e, shop)
	fresh := shop
	fresh.Fresh = true
	if j := agent(t, e, "acme", "agent-a", fresh); j.Status != askonce.StatusPending {
		t.Fatalf("a fresh job of the answering session is %s, want pending", j.Status)
	}
}

func TestDontRememberKeepsTheAnswerOutOfProjectMemory(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	first := agent(t, e, "acme", "agent-a", shop)
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "acme", ID: first.ID, Answer: askonce.TextAnswer("frozen"), DontRemember: true}); err != nil {
		t.Fatal(err)
	}
	if j := agent(t, e, "acme", "agent-b", shop); j.Status != askonce.StatusPending {
		t.Fatalf("another agent's job is %s, want pending: the person asked not to remember", j.Status)
	}
	if j := agent(t, e, "acme", "agent-a", shop); j.Status != askonce.StatusSuccess || j.AnswerMemory.Scope != askonce.MemorySession {
		t.Fatalf("the same session's job is %s (%+v), want success from the session's history", j.Status, j.AnswerMemory)
	}
}

func TestInvalidMemoryIsRejectedNamingTheField(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	e.MaxMemoryTTL = 48 * time.Hour
	for _, c := range []struct {
		name   string
		memory askonce.Memory
		field  string
	}{
		{"unknown scope", askonce.Memory{Scope: "galaxy"}, "memory.scope"},
		{"long project", askonce.Memory{Scope: askonce.MemoryProject, Project: strings.Repeat("p", askonce.MaxProjectBytes+1)}, "memory.project"},
		{"control characters", askonce.Memory{Scope: askonce.MemoryProject, Project: "shop\x1b[31m"}, "memory.project"},
		{"project scope without a project", askonce.Memory{Scope: askonce.MemoryProject}, "memory.project"},
		{"unparsable TTL", askonce.Memory{Scope: askonce.MemoryProject, Project: "shop", TTL: "a month"}, "memory.ttl"},
		{"TTL over the limit", askonce.Memory{Scope: askonce.MemoryProject, Project: "shop", TTL: "49h"}, "memory.ttl"},
	} {
		_, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", Memory: c.memory})
		if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), c.field) {
			t.Errorf("%s: %v, want invalid naming %s", c.name, err, c.field)
		}
	}
	if page, err := e.List(ctx, "", askonce.JobFilter{}); err != nil || len(page.Jobs) != 0 {
		t.Errorf("jobs after the rejected requests: %v (%v), want none", page, err)
	}
}

// A memory.ttl exactly at the maximum is accepted and kept.
func TestMemoryTTLAtTheMaximumIsAccepted(t *testing.T) {
	t.Parallel()
	e, _ := memoryEngine(t)
	e.MaxMemoryTTL = 48 * time.Hour
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", Memory: askonce.Memory{Scope: askonce.MemoryProject, Project: "shop", TTL: "48h"}})
	if err != nil || j.Memory == nil || j.Memory.TTL != (48*time.Hour).String() {
		t.Fatalf("ttl at the maximum: %v, memory %+v; want it accepted and kept", err, j)
	}
}
