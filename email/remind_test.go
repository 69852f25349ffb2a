package email

import (
	"bytes"
	"io"
	"net"
	"net/mail"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// sink is a real SMTP server (go-smtp) on a loopback port keeping every
// message it takes.
type sink struct {
	addr string
	mu   sync.Mutex
	msgs []sunk
}

type sunk struct {
	to     string
	header mail.Header
	body   string
}

func newSink(t *testing.T) *sink {
	t.Helper()
	sk := &sink{}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{sk: sk}, nil }))
	s.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sk.addr = ln.Addr().String()
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return sk
}

type sinkSession struct {
	sk *sink
	to string
}

func (s *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = to
	return nil
}
func (s *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(m.Body)
	s.sk.mu.Lock()
	defer s.sk.mu.Unlock()
	s.sk.msgs = append(s.sk.msgs, sunk{to: s.to, header: m.Header, body: string(body)})
	return nil
}
func (s *sinkSession) Reset()        {}
func (s *sinkSession) Logout() error { return nil }

func (sk *sink) to(addr string) []sunk {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	var out []sunk
	for _, m := range sk.msgs {
		if m.to == addr {
			out = append(out, m)
		}
	}
	return out
}

// reachJob is a gate-mode job asking ann@ with steps, its question
// mailed, on a channel that mails to sk.
func reachJob(t *testing.T, sk *sink, steps ...askonce.ReachStep) (*Channel, *askonce.Engine, *askonce.Job) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &askonce.Engine{Store: st, ReachMinInterval: 1, LinkSecret: []byte("0123456789abcdef0123456789abcdef")}
	c, err := New(Config{Engine: e, SMTP: "smtp://" + sk.addr, From: "askonce@example.test",
		AnswerURL: func(j *askonce.Job) string { return e.AnswerURL("https://askonce.example.test", j) }})
	if err != nil {
		t.Fatal(err)
	}
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Email: []string{"ann@example.test"}, Steps: steps}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{
		Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}); err != nil {
		t.Fatal(err)
	}
	if j, err = e.Get(t.Context(), j.TenantID, j.ID); err != nil {
		t.Fatal(err)
	}
	send(t, c, c.Sends(j, askonce.QuestionAsked))
	return c, e, j
}

func send(t *testing.T, c *Channel, sends []askonce.Send) {
	t.Helper()
	for _, s := range sends {
		s.Attempt = 1
		if err := c.Send(t.Context(), s); err != nil {
			t.Fatalf("send %+v: %v", s, err)
		}
	}
}

func TestRule18_Reach(t *testing.T) {
	t.Parallel()
	t.Run("ReminderIsAReplyInTheQuestionsThreadOnce", func(t *testing.T) {
		t.Parallel()
		sk := newSink(t)
		c, _, j := reachJob(t, sk, askonce.ReachStep{After: "30m"})
		sends := c.StepSends(j, 1)
		if len(sends) != 1 || sends[0] != (askonce.Send{Kind: remindKind, TenantID: j.TenantID, JobID: j.ID, To: "ann@example.test", Step: 1}) {
			t.Fatalf("step 1 sends %+v; want a reminder to ann@", sends)
		}
		send(t, c, sends)
		send(t, c, sends) // a retry
		got := sk.to("ann@example.test")
		if len(got) != 2 {
			t.Fatalf("%d mails to ann@; want the question and one reminder", len(got))
		}
		q, r := got[0].header, got[1].header
		qid := q.Get("Message-Id")
		if r.Get("Subject") != q.Get("Subject") || r.Get("In-Reply-To") != qid || r.Get("References") != qid || r.Get("Message-Id") == qid {
			t.Errorf("reminder headers %v; want the question's subject %q, In-Reply-To and References %s", r, q.Get("Subject"), qid)
		}
		for _, want := range []string{"Reminder: this question has waited", "expires at", "https://askonce.example.test/a/"} {
			if !strings.Contains(strings.ReplaceAll(got[1].body, "=\r\n", ""), want) {
				t.Errorf("reminder body lacks %q:\n%s", want, got[1].body)
			}
		}
	})
	t.Run("EscalationMailsTheQuestionAndTheOutcomeFollows", func(t *testing.T) {
		t.Parallel()
		sk := newSink(t)
		c, e, j := reachJob(t, sk, askonce.ReachStep{After: "2h", Email: []string{"oncall@example.test"}})
		sends := c.StepSends(j, 1)
		if len(sends) != 1 || sends[0].Kind != escalateKind || sends[0].To != "oncall@example.test" {
			t.Fatalf("step 1 sends %+v; want an escalation to oncall@", sends)
		}
		send(t, c, sends)
		send(t, c, sends)
		got := sk.to("oncall@example.test")
		if len(got) != 1 || !strings.HasPrefix(got[0].header.Get("Subject"), "Question: ") || !strings.Contains(got[0].body, "Hot or frozen?") {
			t.Fatalf("mails to oncall@: %+v; want the question, once", got)
		}
		j, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")})
		if err != nil {
			t.Fatal(err)
		}
		// A reminder of the answered question sends nothing.
		send(t, c, []askonce.Send{{Kind: remindKind, TenantID: j.TenantID, JobID: j.ID, To: "ann@example.test", Step: 1}})
		if n := len(sk.to("ann@example.test")); n != 1 {
			t.Errorf("%d mails to ann@ after a reminder of an answered question; want only the question", n)
		}
		var outcomes []string
		for _, s := range c.Sends(j, askonce.QuestionResolved) {
			outcomes = append(outcomes, s.To)
		}
		if strings.Join(outcomes, " ") != "ann@example.test oncall@example.test" {
			t.Errorf("outcomes go to %v; want both addresses the question reached", outcomes)
		}
	})
}
