package dispatch

import (
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
	"github.com/askonce/askonce/webhook"
)

// reachChannel is a fakeChannel that reminds and escalates: a send per
// address, of kind remind or escalate.
type reachChannel struct{ fakeChannel }

func newReachChannel(answer func(askonce.Send) error) *reachChannel {
	return &reachChannel{fakeChannel{name: "email", perAddress: true, kinds: []string{"question", "remind", "escalate"}, answer: answer}}
}

func (c *reachChannel) StepSends(j *askonce.Job, step int) []askonce.Send {
	remind, escalate := j.Notify.Step(step)
	var out []askonce.Send
	for _, a := range remind.Email {
		out = append(out, askonce.Send{Kind: "remind", TenantID: j.TenantID, JobID: j.ID, To: a, Step: step})
	}
	for _, a := range escalate.Email {
		out = append(out, askonce.Send{Kind: "escalate", TenantID: j.TenantID, JobID: j.ID, To: a, Step: step})
	}
	return out
}

// reachEngine is the stack's engine with steps allowed 200ms apart.
func reachEngine(t *testing.T, channels ...askonce.Channel) (*sqlite.Store, *askonce.Engine) {
	st, eng := openChannelStack(t, channels...)
	eng.ReachMinInterval = 200 * time.Millisecond
	return st, eng
}

// askReach creates a job that asks a@example.com, with steps.
func askReach(t *testing.T, eng *askonce.Engine, steps ...askonce.ReachStep) *askonce.Job {
	t.Helper()
	j, err := eng.Create(t.Context(), askonce.CreateRequest{Goal: "make cheese",
		Notify: &askonce.Recipients{Email: []string{"a@example.com"}, Steps: steps}})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v", j, err)
	}
	return j
}

// riverStates returns the states of the job's River rows of kind.
func riverStates(t *testing.T, st *sqlite.Store, jobID, kind string) []string {
	t.Helper()
	rows, err := st.WriteDB().QueryContext(t.Context(),
		`SELECT state FROM river_job WHERE json_extract(args, '$.jobId') = ? AND kind = ? ORDER BY id`, jobID, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// riverRows counts the job's rows in River's table.
func riverRows(t *testing.T, st *sqlite.Store, jobID string) int {
	t.Helper()
	var n int
	if err := st.WriteDB().QueryRowContext(t.Context(), `SELECT count(*) FROM river_job WHERE json_extract(args, '$.jobId') = ?`, jobID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond until it holds; the bound is only for a loaded
// machine under the race detector.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func eventsOf(t *testing.T, st *sqlite.Store, jobID string, types ...askonce.EventType) []askonce.Event {
	t.Helper()
	evs, err := st.Events(t.Context(), askonce.EventQuery{TenantID: "default", JobID: jobID})
	if err != nil {
		t.Fatal(err)
	}
	var out []askonce.Event
	for _, e := range evs {
		if slices.Contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

func TestRule18_Reach(t *testing.T) {
	t.Parallel()
	t.Run("StepsRemindThenEscalateOnceEach", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng,
			askonce.ReachStep{After: "300ms"},
			askonce.ReachStep{After: "600ms", Email: []string{"oncall@example.com"}})
		waitFor(t, "the escalation to oncall@", func() bool { return len(ch.triesOf("oncall@example.com")) == 1 })
		waitFor(t, "the reminder to a@", func() bool { return len(ch.triesOf("a@example.com")) == 2 })
		tries := ch.triesOf("a@example.com")
		if tries[0].Kind != "question" || tries[1] != (askonce.Send{Kind: "remind", TenantID: "default", JobID: j.ID, To: "a@example.com", Step: 1, Attempt: 1}) {
			t.Errorf("sends to a@: %+v; want the question, then step 1's reminder", tries)
		}
		if got := ch.triesOf("oncall@example.com")[0]; got.Kind != "escalate" || got.Step != 2 {
			t.Errorf("send to oncall@: %+v; want step 2's escalation", got)
		}
		waitFor(t, "both steps recorded", func() bool { return len(eventsOf(t, st, j.ID, askonce.EventReminded, askonce.EventEscalated)) == 2 })
		var rem, esc askonce.ReachData
		if err := json.Unmarshal(eventsOf(t, st, j.ID, askonce.EventReminded)[0].Data, &rem); err != nil || rem.Step != 1 || !slices.Equal(rem.Email, []string{"a@example.com"}) {
			t.Errorf("reminded %+v, %v; want step 1 reminding a@", rem, err)
		}
		if err := json.Unmarshal(eventsOf(t, st, j.ID, askonce.EventEscalated)[0].Data, &esc); err != nil || esc.Step != 2 || !slices.Equal(esc.NewEmail, []string{"oncall@example.com"}) {
			t.Errorf("escalated %+v, %v; want step 2 reaching oncall@", esc, err)
		}
		waitFor(t, "both steps completed in River", func() bool {
			return slices.Equal(riverStates(t, st, j.ID, reachKind), []string{"completed", "completed"})
		})
	})
	t.Run("AnswerCancelsTheStepsInItsTransaction", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng, askonce.ReachStep{After: "1h"}, askonce.ReachStep{BeforeExpiry: "1h"})
		if got := riverStates(t, st, j.ID, reachKind); !slices.Equal(got, []string{"scheduled", "scheduled"}) {
			t.Fatalf("steps after the ask: %v; want two scheduled", got)
		}
		if _, _, err := eng.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(anAnswer(j))}); err != nil {
			t.Fatal(err)
		}
		// No wait: the answer's commit cancelled them.
		if got := riverStates(t, st, j.ID, reachKind); !slices.Equal(got, []string{"cancelled", "cancelled"}) {
			t.Errorf("steps right after the answer: %v; want both cancelled", got)
		}
	})
	t.Run("CancelledJobCancelsTheSteps", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng, askonce.ReachStep{After: "1h"})
		if _, _, err := eng.Act(t.Context(), askonce.Act{Do: askonce.ActCancel, ID: j.ID}); err != nil {
			t.Fatal(err)
		}
		if got := riverStates(t, st, j.ID, reachKind); !slices.Equal(got, []string{"cancelled"}) {
			t.Errorf("step right after the cancel: %v; want cancelled", got)
		}
	})
	t.Run("ExpiryCancelsTheSteps", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng, askonce.ReachStep{After: "1h"}, askonce.ReachStep{BeforeExpiry: "1h"})
		eng.Now = func() time.Time { return time.Now().Add(48 * time.Hour) }
		if n, err := eng.ExpireDue(t.Context()); err != nil || n != 1 {
			t.Fatalf("ExpireDue = %d, %v; want the one question", n, err)
		}
		if got := riverStates(t, st, j.ID, reachKind); !slices.Equal(got, []string{"cancelled", "cancelled"}) {
			t.Errorf("steps right after the expiry: %v; want both cancelled", got)
		}
	})
	t.Run("NoPolicyAddsNoRiverJob", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		plain := askReach(t, eng)
		policy := askReach(t, eng, askonce.ReachStep{After: "1h"}, askonce.ReachStep{After: "2h"}, askonce.ReachStep{BeforeExpiry: "1h"})
		// The ask queues one send for a@ either way.
		if n := riverRows(t, st, plain.ID); n != 1 {
			t.Errorf("a job without steps has %d River jobs after its ask; want 1, its one send, as before reach policies", n)
		}
		if n := riverRows(t, st, policy.ID); n != 1+3 {
			t.Errorf("a job with 3 steps has %d River jobs after its ask; want 1 send + 3 steps", n)
		}
		if _, _, err := eng.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: plain.ID, Answer: askonce.TextAnswer(anAnswer(plain))}); err != nil {
			t.Fatal(err)
		}
		if n := riverRows(t, st, plain.ID); n != 1 {
			t.Errorf("a job without steps has %d River jobs after its answer; want 1", n)
		}
	})
	t.Run("StepOfAnAnsweredQuestionSendsNothing", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(askonce.Send) error { return nil })
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng, askonce.ReachStep{After: "1h"})
		if _, _, err := eng.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(anAnswer(j))}); err != nil {
			t.Fatal(err)
		}
		// Run the step as a River rerun would, after the answer.
		w := &reachWorker{d: &Dispatcher{cfg: Config{Store: st, Channels: []askonce.Channel{ch}, Backoff: DefaultBackoff}, log: testLogger()}}
		rj := &river.Job[reachArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: reachArgs{TenantID: j.TenantID, JobID: j.ID, Step: 1, AskedAt: j.UpdatedAt}}
		if err := w.Work(t.Context(), rj); err != nil {
			t.Fatal(err)
		}
		if len(ch.triesOf("a@example.com")) > 1 || len(eventsOf(t, st, j.ID, askonce.EventReminded)) != 0 {
			t.Errorf("a step after the answer sent %+v", ch.triesOf("a@example.com"))
		}
	})
	t.Run("SendThatFailsForGoodIsRecorded", func(t *testing.T) {
		t.Parallel()
		ch := newReachChannel(func(s askonce.Send) error {
			if s.Kind == "remind" {
				return errors.New("mailbox full")
			}
			return nil
		})
		st, eng := reachEngine(t, ch)
		j := askReach(t, eng, askonce.ReachStep{After: "200ms"})
		waitFor(t, "the reach_failed event", func() bool { return len(eventsOf(t, st, j.ID, askonce.EventReachFailed)) == 1 })
		ev := eventsOf(t, st, j.ID, askonce.EventReachFailed)[0]
		var d struct {
			Step      int
			To, Error string
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Step != 1 || d.To != "a@example.com" || d.Error != "mailbox full" {
			t.Errorf("reach_failed %s; want step 1 to a@ with the error", ev.Data)
		}
		if n := len(ch.triesOf("a@example.com")); n != 1+testConfig(nil).MaxAttempts {
			t.Errorf("%d sends to a@; want the question and %d tries of the reminder", n, testConfig(nil).MaxAttempts)
		}
	})
}

// A step sends a signed question.reminded webhook with the wait, the
// expiry and the answer link, once; its webhook-id names the step.
func TestRule18_QuestionRemindedWebhookIsSentOncePerStepAcrossRestart(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	path := filepath.Join(t.TempDir(), "a.db")
	s := openNotifyStack(t, path, rcv.URL)
	s.eng.ReachMinInterval = 100 * time.Millisecond
	j, err := s.eng.Create(t.Context(), askonce.CreateRequest{Goal: "make cheese",
		Notify: &askonce.Recipients{Email: []string{"a@example.com"}, Steps: []askonce.ReachStep{{After: "1500ms"}}}})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v", j, err)
	}
	// The process stops before the step is due; the next one runs it.
	s.close(t)
	s = openNotifyStack(t, path, rcv.URL)
	waitAcked(t, rcv, 2)
	id := j.ID + ":question.reminded:1"
	reqs := rcv.requests(id)
	if len(reqs) != 1 {
		t.Fatalf("%d requests of %s; want 1", len(reqs), id)
	}
	if err := webhook.Verify(secret, reqs[0].header, reqs[0].body, time.Minute); err != nil {
		t.Errorf("Verify: %v", err)
	}
	var ev RemindedEvent
	if err := json.Unmarshal(reqs[0].body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "question.reminded" || ev.Step != 1 || ev.Reach != "reminder" || ev.WaitedSeconds < 1 ||
		ev.Question.ExpiresAt == nil || ev.AnswerURL != linkBase+"/a/"+s.eng.AnswerToken(j) {
		t.Errorf("question.reminded %s; want step 1, a reminder after at least 1s, with the expiry and the answer link", reqs[0].body)
	}
	// Nothing more comes: wait for the step's River row to finish, then
	// count again.
	waitFor(t, "the step completed", func() bool {
		return slices.Equal(riverStates(t, s.st, j.ID, reachKind), []string{"completed"})
	})
	waitFor(t, "the webhook completed", func() bool {
		return slices.Equal(riverStates(t, s.st, j.ID, notifyKind), []string{"completed", "completed"})
	})
	if n := len(rcv.requests(id)); n != 1 {
		t.Errorf("%d requests of %s after the restart; want 1", n, id)
	}
}

// anAnswer is an answer the job's question takes, whatever the test
// interpreter asks.
func anAnswer(j *askonce.Job) string {
	if q := j.Question; q != nil && len(q.Options) > 0 {
		return q.Options[0]
	}
	return "yes"
}
