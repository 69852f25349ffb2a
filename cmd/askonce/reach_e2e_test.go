package main_test

import (
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reachEnv points serve at the mailbox.
func reachEnv(mb *mailbox) []string { return []string{"ASKONCE_SMTP_URL=" + smtpURL(mb.addr)} }

// TestRule18_Reach: a job's reach policy against the fake Slack and a real SMTP
// server, on the served binary: steps seconds apart, waited for.
func TestRule18_Reach(t *testing.T) {
	t.Parallel()
	t.Run("RemindsThenEscalatesAndOneAnswerSettlesEveryCopy", reachRemindsThenEscalatesAndOneAnswerSettlesEveryCopy)
	t.Run("StepSurvivesASIGKILLAndIsSentOnce", reachStepSurvivesASIGKILLAndIsSentOnce)
}

func reachRemindsThenEscalatesAndOneAnswerSettlesEveryCopy(t *testing.T) {
	t.Parallel()
	f, mb := newFakeSlack(t), newMailbox(t)
	in := start(t, append(reachEnv(mb), "ASKONCE_SLACK_BOT_TOKEN="+slackToken, "ASKONCE_SLACK_SIGNING_SECRET="+slackSecret),
		"--db", filepath.Join(t.TempDir(), "a.db"), "--slack-api-url", f.srv.GetAPIURL(), "--delivery-backoff", "50ms",
		"--email-from", "askonce@example.com", "--reach-min-interval", "1s")
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{
		"slack": map[string]any{"channel": "C0123ABCD"}, "email": []string{"ann@example.com"},
		"steps": []map[string]any{{"after": "2s"}, {"after": "4s", "email": []string{"oncall@example.com"}, "slack": map[string]any{"user": "U0ONCALL01"}}},
	}})
	id := str(r.body, "jobId")
	if r.status != 201 || str(r.body, "status") != "pending" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	question := f.posted(t, id)
	// Step 1 reminds in the message's thread and in the mail's.
	eventually(t, "the Slack reminder in the question's thread", func() bool {
		return len(f.find("chat.postMessage", func(v url.Values) bool { return v.Get("thread_ts") == question.form.Get("ts") })) == 1
	})
	eventually(t, "the reminder mail", func() bool { return len(mb.to(t, "ann@example.com", "Question:")) == 2 })
	mails := mb.to(t, "ann@example.com", "Question:")
	if mails[1].header.Get("Subject") != mails[0].header.Get("Subject") || mails[1].header.Get("In-Reply-To") != "<askonce."+id+"@example.com>" ||
		!strings.Contains(mails[1].text, "Reminder: this question has waited") {
		t.Errorf("reminder mail %v\n%s; want the question's subject, In-Reply-To it, with the wait", mails[1].header, mails[1].text)
	}
	// Step 2 sends the whole question to the on-call person, in Slack and
	// by email.
	eventually(t, "the escalation in Slack", func() bool { return len(f.question("default", id)) == 2 })
	eventually(t, "the escalation mail", func() bool { return len(mb.to(t, "oncall@example.com", "Question:")) == 1 })
	esc := f.question("default", id)[1]
	if esc.form.Get("channel") != "U0ONCALL01" {
		t.Errorf("escalation posted to %q; want U0ONCALL01", esc.form.Get("channel"))
	}
	// The on-call person answers on their copy; every copy says so.
	if code, body := interact(t, in, click("default", id, "U0ONCALL01", "option_1", "o:1"), signedNow); code != 200 {
		t.Fatalf("click: %d %s", code, body)
	}
	eventually(t, "both messages updated with the answer", func() bool {
		ups := f.find("chat.update", func(v url.Values) bool { return strings.Contains(v.Get("text"), "<@U0ONCALL01>") })
		chans := map[string]bool{}
		for _, u := range ups {
			chans[u.form.Get("channel")] = true
		}
		return chans["C0123ABCD"] && chans["D0ONCALL01"]
	})
	eventually(t, "the outcome to both addresses", func() bool {
		return len(mb.to(t, "ann@example.com", "Re: Question:")) == 1 && len(mb.to(t, "oncall@example.com", "Re: Question:")) == 1
	})
	ev := in.do("GET", "/jobs/"+id+"/events", nil)
	for _, want := range []string{`"type":"reminded"`, `"type":"escalated"`} {
		if !strings.Contains(string(ev.raw), want) {
			t.Errorf("events lack %s:\n%s", want, ev.raw)
		}
	}
	m := string(in.do("GET", "/metrics", nil).raw)
	for _, want := range []string{`askonce_reach_steps_total{kind="reminder"} 1`, `askonce_reach_steps_total{kind="escalation"} 1`, `askonce_question_answer_seconds_count{via="slack"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func reachStepSurvivesASIGKILLAndIsSentOnce(t *testing.T) {
	t.Parallel()
	f, mb := newFakeSlack(t), newMailbox(t)
	db := filepath.Join(t.TempDir(), "a.db")
	env := append(reachEnv(mb), "ASKONCE_SLACK_BOT_TOKEN="+slackToken, "ASKONCE_SLACK_SIGNING_SECRET="+slackSecret)
	args := []string{"--db", db, "--slack-api-url", f.srv.GetAPIURL(), "--delivery-backoff", "50ms", "--email-from", "askonce@example.com", "--reach-min-interval", "1s"}
	in := start(t, env, args...)
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{
		"email": []string{"ann@example.com"}, "steps": []map[string]any{{"after": "5s"}}}})
	id := str(r.body, "jobId")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	// The question's own mail first: killed while sending it, River would
	// take it up again only after its rescue interval, which is not what
	// this test is about. The step is still scheduled when the process dies.
	eventually(t, "the question's mail", func() bool { return len(mb.to(t, "ann@example.com", "Question:")) == 1 })
	in.stop(syscall.SIGKILL)
	in = start(t, env, args...)
	// After a SIGKILL the new process leads River's maintenance (which
	// makes the scheduled step available) only once the dead leader's
	// lease lapses.
	within(t, 90*time.Second, "the reminder after the restart", func() bool { return len(mb.to(t, "ann@example.com", "Question:")) == 2 })
	eventually(t, "the reminded event", func() bool {
		return strings.Contains(string(in.do("GET", "/jobs/"+id+"/events", nil).raw), `"type":"reminded"`)
	})
	if n := strings.Count(string(in.do("GET", "/jobs/"+id+"/events", nil).raw), `"type":"reminded"`); n != 1 {
		t.Errorf("%d reminded events; want 1", n)
	}
}
