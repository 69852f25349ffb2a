package email

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// The outcome's HTML part escapes every text a user or an interpreter
// wrote: the title, the question, the answer and who gave it, the error.
func TestOutcomeMailEscapesHostileTextInTheHTMLPart(t *testing.T) {
	t.Parallel()
	j := &askonce.Job{ID: "0195d3c1-0000-7000-8000-000000000001", Title: "T <b>", Status: askonce.StatusSuccess,
		Question:            &askonce.Question{Type: askonce.QuestionFreeText, Text: `<img src=x onerror=alert(1)>`},
		ClarificationStatus: askonce.ClarificationAnswered, Answer: askonce.TextAnswer("<script>x</script>"), AnsweredVia: "slack", AnsweredBy: "<i>U1</i>",
		Plan: &askonce.Plan{Title: "<svg onload=alert(2)>", Tasks: []askonce.Task{{ID: "t1"}}}}
	_, html, err := newOutcomeView(j).render()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<b>", "<img", "<script>", "<i>", "<svg"} {
		if strings.Contains(html, bad) {
			t.Errorf("the outcome's HTML part holds %q unescaped:\n%s", bad, html)
		}
	}
}

// workerChannel is the channel over a real SQLite store with an SMTP
// server nobody listens on: a worker that tried to send would fail.
func workerChannel(t *testing.T) (*Channel, *askonce.Engine) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &askonce.Engine{Store: st}
	c, err := New(Config{Engine: e, SMTP: "smtp://127.0.0.1:1", From: "askonce@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	return c, e
}

// askingJob is a gate-mode job with a pending question.
func askingJob(t *testing.T, e *askonce.Engine) *askonce.Job {
	t.Helper()
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{
		Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}); err != nil {
		t.Fatal(err)
	}
	return j
}

// A job settled before its question worker runs gets no question mail.
func TestQuestionOfAJobSettledBeforeTheWorkerRunsIsNotMailed(t *testing.T) {
	t.Parallel()
	c, e := workerChannel(t)
	j := askingJob(t, e)
	if _, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
		t.Fatal(err)
	}
	w := &questionWorker{c: c}
	send := askonce.Send{Kind: askKind, TenantID: j.TenantID, JobID: j.ID, To: "ann@example.test", Attempt: 1}
	if err := w.Work(t.Context(), send); err != nil {
		t.Fatalf("Work = %v; want nothing sent and nothing to retry", err)
	}
}

// No outcome reply goes to an address that never got the question.
func TestOutcomeIsNotMailedToAnAddressThatNeverGotTheQuestion(t *testing.T) {
	t.Parallel()
	c, e := workerChannel(t)
	j := askingJob(t, e)
	if _, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActCancel, ID: j.ID}); err != nil {
		t.Fatal(err)
	}
	w := &outcomeWorker{c: c}
	send := askonce.Send{Kind: replyKind, TenantID: j.TenantID, JobID: j.ID, To: "eve@example.test", Attempt: 1}
	if err := w.Work(t.Context(), send); err != nil {
		t.Fatalf("Work = %v; want nothing sent and nothing to retry", err)
	}
}
