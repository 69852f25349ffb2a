package main_test

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

const smtpUser, smtpPass = "mailer", "s3cret-smtp-pass"

// mailbox is a real SMTP server (go-smtp) on a loopback port that
// takes PLAIN auth as smtpUser and keeps every message.
type mailbox struct {
	addr string
	mu   sync.Mutex
	msgs []received
}

type received struct {
	to   []string
	data []byte
	tls  bool // the message came over TLS (STARTTLS or implicit)
}

func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	return serveMailbox(t, nil, false)
}

// serveMailbox starts the mailbox's server: plain when cfg is nil, else
// offering STARTTLS with cfg, or speaking TLS from the first byte when
// implicit is set.
func serveMailbox(t *testing.T, cfg *tls.Config, implicit bool) *mailbox {
	t.Helper()
	mb := &mailbox{}
	s := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &smtpSession{mb: mb, conn: c}, nil }))
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.TLSConfig = cfg
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if implicit {
		ln = tls.NewListener(ln, cfg)
	}
	mb.addr = ln.Addr().String()
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return mb
}

type smtpSession struct {
	mb     *mailbox
	conn   *smtp.Conn
	authed bool
	to     []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != smtpUser || pass != smtpPass {
			return errors.New("bad credentials")
		}
		s.authed = true
		return nil
	}), nil
}
func (s *smtpSession) Mail(string, *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	return nil
}
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = append(s.to, to); return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.mb.mu.Lock()
	defer s.mb.mu.Unlock()
	_, overTLS := s.conn.TLSConnectionState()
	s.mb.msgs = append(s.mb.msgs, received{to: s.to, data: b, tls: overTLS})
	return nil
}
func (s *smtpSession) Reset()        { s.to = nil }
func (s *smtpSession) Logout() error { return nil }

// parsed is a received mail: its headers and its text and HTML parts.
type parsed struct {
	to         []string
	header     mail.Header
	text, html string
}

func (mb *mailbox) messages(t *testing.T) []parsed {
	t.Helper()
	mb.mu.Lock()
	defer mb.mu.Unlock()
	var out []parsed
	for _, m := range mb.msgs {
		msg, err := mail.ReadMessage(bytes.NewReader(m.data))
		if err != nil {
			t.Fatalf("received mail does not parse: %v\n%s", err, m.data)
		}
		p := parsed{to: m.to, header: msg.Header}
		mt, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if mt != "multipart/alternative" {
			t.Fatalf("Content-Type %q; want multipart/alternative with text and HTML", msg.Header.Get("Content-Type"))
		}
		mr := multipart.NewReader(msg.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			var body io.Reader = part
			if part.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
				body = quotedprintable.NewReader(part)
			}
			b, _ := io.ReadAll(body)
			switch ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); ct {
			case "text/plain":
				p.text = string(b)
			case "text/html":
				p.html = string(b)
			}
		}
		out = append(out, p)
	}
	return out
}

// to returns the messages sent to addr whose subject starts with prefix.
func (mb *mailbox) to(t *testing.T, addr, prefix string) []parsed {
	var out []parsed
	for _, m := range mb.messages(t) {
		subj, _ := new(mime.WordDecoder).DecodeHeader(m.header.Get("Subject"))
		if len(m.to) == 1 && m.to[0] == addr && strings.HasPrefix(subj, prefix) {
			out = append(out, m)
		}
	}
	return out
}

func smtpURL(addr string) string { return "smtp://" + smtpUser + ":" + smtpPass + "@" + addr }

// TestEmail: the email channel against a real SMTP server: the question with
// option links, replies, TLS, outages.
func TestEmail(t *testing.T) {
	t.Parallel()
	t.Run("OptionLinkAnswersAfterOneClickInChromium", emailOptionLinkAnswersAfterOneClickInChromium)
	t.Run("QuestionWithBothPartsAndOptionLinksThenTheOutcomeAsAReply", emailQuestionWithBothPartsAndOptionLinksThenTheOutcomeAsAReply)
	t.Run("OutageNeverBlocksAskingOrAnswering", emailOutageNeverBlocksAskingOrAnswering)
	t.Run("RequireTLSRefusesAPlainServer", emailRequireTLSRefusesAPlainServer)
	t.Run("GoesOverSTARTTLSAndImplicitTLS", emailGoesOverSTARTTLSAndImplicitTLS)
}

func emailQuestionWithBothPartsAndOptionLinksThenTheOutcomeAsAReply(t *testing.T) {
	t.Parallel()
	mb := newMailbox(t)
	in := start(t, []string{"ASKONCE_SMTP_URL=" + smtpURL(mb.addr)},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com", "--delivery-backoff", "50ms")
	goal := "hot frozen cheese <script>alert(1)</script>"
	r := in.do("POST", "/jobs", map[string]any{"goal": goal, "notify": map[string]any{"email": []string{"ann@example.com", "bob@example.org"}}})
	id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
	if r.status != 201 || link == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	eventually(t, "the question to both addresses", func() bool {
		return len(mb.to(t, "ann@example.com", "Question:")) == 1 && len(mb.to(t, "bob@example.org", "Question:")) == 1
	})
	q := mb.to(t, "ann@example.com", "Question:")[0]
	if got := q.header.Get("Message-Id"); got != "<askonce."+id+"@example.com>" {
		t.Errorf("Message-ID %q; want <askonce.%s@example.com>", got, id)
	}
	if !strings.Contains(q.text, "- frozen") || !strings.Contains(q.text, link+"?choice=1&via=email-link") || !strings.Contains(q.text, goal) {
		t.Errorf("text part lacks the options, the goal or the link with option 1 preselected:\n%s", q.text)
	}
	if strings.Contains(q.html, "<script>") || !strings.Contains(q.html, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("HTML part does not escape the goal:\n%s", q.html)
	}
	// Each link is ann's own: it names her, with its mark.
	choice := regexp.MustCompile(`<a href="([^"]+\?choice=1&amp;via=email-link&amp;by=ann%40example.com&amp;mark=[^"]+)">frozen</a>`).FindStringSubmatch(q.html)
	if choice == nil {
		t.Fatalf("HTML part has no link of option frozen:\n%s", q.html)
	}
	// Opening the option's link shows it chosen and answers nothing.
	page, err := http.Get(strings.ReplaceAll(choice[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(string(body), `value="frozen" checked`) {
		t.Fatalf("option link: %d; want the page with frozen chosen\n%s", page.StatusCode, body)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "status") != "pending" {
		t.Fatalf("after opening the option link the job is %s; want pending", str(j.body, "status"))
	}

	// The page's button answers, recorded as an answer from the email.
	form := regexp.MustCompile(`<form method="post" action="([^"]+)"`).FindStringSubmatch(string(body))
	if form == nil || !strings.Contains(form[1], "?by=ann%40example.com&amp;mark=") || !strings.Contains(form[1], "&amp;via=email-link") {
		t.Fatalf("the page's form does not keep via=email-link and whose link it is: %v", form)
	}
	resp, err := http.PostForm(in.base+strings.ReplaceAll(form[1], "&amp;", "&"), map[string][]string{"answer": {"frozen"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, "the job answered from the email", func() bool {
		j := in.do("GET", "/jobs/"+id, nil)
		return str(j.body, "clarificationAnswer") == "frozen" && str(j.body, "answeredVia") == "email-link" && str(j.body, "answeredBy") == "ann@example.com"
	})
	eventually(t, "the outcome reply to both addresses", func() bool {
		return len(mb.to(t, "ann@example.com", "Re: Question:")) == 1 && len(mb.to(t, "bob@example.org", "Re: Question:")) == 1
	})
	reply := mb.to(t, "ann@example.com", "Re: Question:")[0]
	if got := reply.header.Get("In-Reply-To"); got != "<askonce."+id+"@example.com>" {
		t.Errorf("In-Reply-To %q; want the question's Message-ID", got)
	}
	if !strings.Contains(reply.text, "Answered: “frozen” (via email-link, by ann@example.com)") || !strings.Contains(reply.text, "Planned:") || reply.html == "" {
		t.Errorf("reply lacks the answer or the plan:\n%s", reply.text)
	}
	if n := len(mb.to(t, "ann@example.com", "Question:")); n != 1 {
		t.Errorf("%d question mails to ann; want 1", n)
	}
	if strings.Contains(in.logs.String(), smtpPass) {
		t.Fatalf("the server's output holds the SMTP password:\n%s", in.logs.String())
	}
}

// SMTP down: the job still asks, its answer link works, the failed sends
// show in the metric, and the password is in no log.
func emailOutageNeverBlocksAskingOrAnswering(t *testing.T) {
	t.Parallel()
	down := refusingAddr(t) // nothing listens there, and nothing can start to
	in := start(t, []string{"ASKONCE_SMTP_URL=" + smtpURL(down)},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com", "--email-to", "ops@example.com", "--delivery-backoff", "50ms")
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
	if r.status != 201 || str(r.body, "status") != "pending" || link == "" {
		t.Fatalf("create with SMTP down: %d %s", r.status, r.raw)
	}
	eventually(t, "failed sends in the metric", func() bool {
		m := in.do("GET", "/metrics", nil)
		return strings.Contains(string(m.raw), `askonce_channel_sends_total{channel="email",kind="question",outcome="error"}`)
	})
	eventually(t, "a notify_failed event on the job", func() bool {
		ev := in.do("GET", "/jobs/"+id+"/events", nil)
		return strings.Contains(string(ev.raw), `"type":"notify_failed"`) && strings.Contains(string(ev.raw), `"channel":"email"`)
	})
	tok := strings.TrimPrefix(link, in.base)
	resp, err := http.PostForm(in.base+tok, map[string][]string{"answer": {"hot"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, "the job answered through its link", func() bool {
		return str(in.do("GET", "/jobs/"+id, nil).body, "clarificationAnswer") == "hot"
	})
	if strings.Contains(in.logs.String(), smtpPass) {
		t.Fatalf("the server's output holds the SMTP password:\n%s", in.logs.String())
	}
}

// --smtp-require-tls refuses a server that offers no STARTTLS: nothing
// is delivered, and the failure shows in the metric.
func emailRequireTLSRefusesAPlainServer(t *testing.T) {
	t.Parallel()
	mb := newMailbox(t)
	in := start(t, []string{"ASKONCE_SMTP_URL=" + smtpURL(mb.addr)},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com", "--email-to", "ops@example.com",
		"--smtp-require-tls", "--delivery-backoff", "50ms")
	in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	eventually(t, "failed sends in the metric", func() bool {
		m := in.do("GET", "/metrics", nil)
		return strings.Contains(string(m.raw), `askonce_channel_sends_total{channel="email",kind="question",outcome="error"}`)
	})
	if n := len(mb.messages(t)); n != 0 {
		t.Fatalf("%d mails delivered over plain SMTP; want none", n)
	}
}

// askonce run --notify-email stores the job's recipients with the job,
// and jobs show prints them beside who answered and where: against a
// server the terminal is an API client, so "http". (The terminal
// answers at once, so whether the mail still goes out is not asked here:
// the email tests above cover the sending.)
func cliRunNotifyEmailIsStoredAndShownByJobsShow(t *testing.T) {
	t.Parallel()
	mb := newMailbox(t)
	in := start(t, []string{"ASKONCE_SMTP_URL=" + smtpURL(mb.addr)},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com")
	out, errs, code := cli(t, "2\n", "run", "--server", in.base, "--notify-email", "ann@example.com,bo@example.com", "hot frozen cheese")
	want(t, "run --notify-email", out, errs, code, 0, "2) frozen", "answer: frozen (from user)")
	id := jobIDRe.FindString(out)
	r := in.do("GET", "/jobs/"+id, nil)
	if !strings.Contains(string(r.raw), `"email":["ann@example.com","bo@example.com"]`) {
		t.Fatalf("the job does not hold both recipients:\n%s", r.raw)
	}
	out, errs, code = cli(t, "", "jobs", "show", "--server", in.base, id)
	want(t, "jobs show", out, errs, code, 0)
	if !regexp.MustCompile(`(?m)^\s*Notify\s+email ann@example.com, bo@example.com$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^\s*Answered via\s+http$`).MatchString(out) {
		t.Fatalf("jobs show lacks the Notify row with both addresses or the Answered via row (http):\n%s", out)
	}
}

// selfSigned returns a TLS configuration with net/http/httptest's
// certificate (for 127.0.0.1, and a CA of its own) and a PEM file of it
// for SSL_CERT_FILE: the askonce under test trusts it as Go's
// crypto/x509 trusts that file's certificates on Linux.
func selfSigned(t *testing.T) (*tls.Config, string) {
	t.Helper()
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	s.Close() // only its certificate is wanted
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: s.TLS.Certificates}, file
}

// A server that offers STARTTLS gets the mail over TLS (with
// --smtp-require-tls, and without it: TLS whenever it is offered), and
// smtps:// speaks TLS from the first byte.
func emailGoesOverSTARTTLSAndImplicitTLS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		implicit bool
		scheme   string
		flags    []string
	}{
		{"starttls required", false, "smtp", []string{"--smtp-require-tls"}},
		{"starttls when offered", false, "smtp", nil},
		{"implicit tls", true, "smtps", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, ca := selfSigned(t)
			mb := serveMailbox(t, cfg, c.implicit)
			in := start(t, []string{"ASKONCE_SMTP_URL=" + c.scheme + "://" + smtpUser + ":" + smtpPass + "@" + mb.addr, "SSL_CERT_FILE=" + ca},
				append([]string{"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com", "--delivery-backoff", "50ms"}, c.flags...)...)
			r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{"email": []string{"ann@example.com"}}})
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			eventually(t, "the question mail", func() bool { return len(mb.to(t, "ann@example.com", "Question:")) == 1 })
			mb.mu.Lock()
			defer mb.mu.Unlock()
			for _, m := range mb.msgs {
				if !m.tls {
					t.Fatalf("a mail came over plain SMTP; want TLS")
				}
			}
		})
	}
}
