package main_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// answerForm matches the answer page's form and its action.
var answerForm = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// submitAnswerPage opens the answer page at link and submits its form as
// a browser would (same origin), with fields; it returns the status of
// the page the browser lands on.
func submitAnswerPage(t *testing.T, link string, fields url.Values) int {
	t.Helper()
	page, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := answerForm.FindStringSubmatch(string(body))
	if page.StatusCode != 200 || m == nil {
		t.Fatalf("answer page: %d without its form\n%s", page.StatusCode, body)
	}
	base, _ := url.Parse(link)
	action, err := base.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil {
		t.Fatalf("form action %q: %v", m[1], err)
	}
	req, _ := http.NewRequest("POST", action.String(), strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base.Scheme+"://"+base.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req) // follows the 303 to the outcome
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// settledUpdate waits for the chat.update of the question message q (same
// channel and ts) whose text holds want and which has no controls left.
func settledUpdate(t *testing.T, f *fakeSlack, q slackCall, want string) {
	t.Helper()
	eventually(t, "the message updated to say "+want+", with no controls", func() bool {
		for _, u := range f.find("chat.update", func(v url.Values) bool {
			return v.Get("ts") == q.form.Get("ts") && v.Get("channel") == q.form.Get("channel")
		}) {
			if strings.Contains(textOf(u.blocks(t)), want) && actionsOf(u.blocks(t)) == nil && !strings.Contains(u.form.Get("blocks"), `"actions"`) {
				return true
			}
		}
		return false
	})
}

// However the question is settled outside Slack, its one message is
// updated (chat.update of the posted ts) to say how and where, with no
// controls left.
func slackMessageUpdatedWhenSettledOutsideSlack(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	for _, tc := range []struct {
		name   string
		settle func(t *testing.T, id, link string)
		want   string
	}{
		{"AnswerPage", func(t *testing.T, id, link string) {
			if code := submitAnswerPage(t, link, url.Values{"answer": {"hot"}}); code != 200 {
				t.Fatalf("answer page submit: %d", code)
			}
		}, "✅ Answered “hot” on the answer page."},
		{"AnswerPageCancel", func(t *testing.T, id, link string) {
			if code := submitAnswerPage(t, link, url.Values{"action": {"cancel"}}); code != 200 {
				t.Fatalf("answer page cancel: %d", code)
			}
		}, "🚫 Cancelled; the question was not answered."},
		{"HTTPAnswer", func(t *testing.T, id, link string) {
			if a := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}); a.status != 200 {
				t.Fatalf("answer: %d %s", a.status, a.raw)
			}
		}, "✅ Answered “hot” over the HTTP API."},
		{"HTTPCancel", func(t *testing.T, id, link string) {
			if c := in.do("POST", "/jobs/"+id+"/cancel", nil); c.status >= 300 {
				t.Fatalf("cancel: %d %s", c.status, c.raw)
			}
		}, "🚫 Cancelled; the question was not answered."},
		{"MCP", func(t *testing.T, id, link string) {
			c := sdk.NewClient(&sdk.Implementation{Name: "e2e-agent", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "answer", Arguments: map[string]any{"jobId": id, "answer": "hot"}})
			if err != nil || res.IsError {
				t.Fatalf("MCP answer: %v %s", err, toolText(res))
			}
		}, "✅ Answered “hot” by e2e-agent over MCP."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A session of its own, so that no job is answered from
			// another's memory.
			r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "sessionId": "settle-" + tc.name})
			id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
			if r.status != 201 || str(r.body, "status") != "pending" || link == "" {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			q := f.posted(t, id)
			tc.settle(t, id, link)
			settledUpdate(t, f, q, tc.want)
			if n := len(f.question("default", id)); n != 1 {
				t.Fatalf("%d question messages; want 1", n)
			}
		})
	}
}

// The question expires with no answer: the message says so, with no
// controls left.
func slackMessageUpdatedWhenTheQuestionExpires(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f, "--question-ttl", "2s", "--expiry-interval", "200ms")
	id := gateJob(t, in, map[string]any{"type": "FREE_TEXT", "text": "Name it"})
	// The wait is counted from the job's creation, so it reads 2s or a
	// little more on a loaded machine.
	settledUpdate(t, f, f.posted(t, id), ", and the question had no default; the job expired.")
}

// Decline and Cancel clicked on the message, signed as Slack signs them:
// Decline answers with the question's default, recorded as from the
// clicker in Slack; Cancel cancels the job. Either way the message is
// updated to say so, with no controls left.
func slackDeclineAndCancelButtons(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	question := map[string]any{"type": "SELECT_ONE", "text": "Hot or frozen?", "options": []string{"hot", "frozen"}, "default": "frozen"}

	t.Run("Decline", func(t *testing.T) {
		id := gateJob(t, in, question)
		q := f.posted(t, id)
		if code, raw := interact(t, in, click("default", id, "U0ANN0001", "decline", ""), signedNow); code != 200 {
			t.Fatalf("decline click: %d %s", code, raw)
		}
		eventually(t, "the job answered with its default", func() bool {
			j := in.do("GET", "/jobs/"+id, nil)
			return str(j.body, "clarificationStatus") == "answered" && str(j.body, "clarificationAnswer") == "frozen"
		})
		j := in.do("GET", "/jobs/"+id, nil)
		if str(j.body, "clarificationSource") != "default" || str(j.body, "answeredVia") != "slack" || str(j.body, "answeredBy") != "U0ANN0001" {
			t.Errorf("declined job: clarificationSource %q, answeredVia %q, answeredBy %q; want default, slack, U0ANN0001\n%s",
				str(j.body, "clarificationSource"), str(j.body, "answeredVia"), str(j.body, "answeredBy"), j.raw)
		}
		settledUpdate(t, f, q, "↩️ Declined by <@U0ANN0001> in Slack; the default “frozen” was used.")
	})

	t.Run("Cancel", func(t *testing.T) {
		id := gateJob(t, in, question)
		q := f.posted(t, id)
		if code, raw := interact(t, in, click("default", id, "U0ANN0001", "cancel", ""), signedNow); code != 200 {
			t.Fatalf("cancel click: %d %s", code, raw)
		}
		eventually(t, "the job cancelled", func() bool { return str(in.do("GET", "/jobs/"+id, nil).body, "status") == "cancelled" })
		settledUpdate(t, f, q, "🚫 Cancelled; the question was not answered.")
		if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "clarificationAnswer") != "" {
			t.Errorf("the cancelled job has the answer %q; want none", str(j.body, "clarificationAnswer"))
		}
	})
}

// postInteraction posts body with header to /slack/interactions.
func postInteraction(t *testing.T, in *instance, body string, header http.Header) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", in.base+"/slack/interactions", strings.NewReader(body))
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// A captured interaction sent again, byte for byte with its signature,
// inside the 5 minutes the timestamp is good for: the job was answered
// once, and the replay changes nothing (the job, its events and the
// message); the clicker is only told it is settled. Both while the job
// is still running with the answer (a gate job waits for its agent) and
// once it has its plan.
func slackReplayedInteractionChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	for _, tc := range []struct {
		name   string
		create func(t *testing.T) string
		user   string // who clicks, one per case
		status string // the job's status once answered
		sent   []string
	}{
		{"WhileTheAgentRuns", func(t *testing.T) string {
			return gateJob(t, in, map[string]any{"type": "SELECT_ONE", "text": "Hot or frozen?", "options": []string{"hot", "frozen"}})
		}, "U0ANN0001", "planning", nil},
		{"AfterThePlan", func(t *testing.T) string {
			r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			return str(r.body, "jobId")
		}, "U0BOB0001", "success", []string{`"channel":"slack","kind":"outcome","attempt":`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.create(t)
			// Clicked only once askonce has stored the message: a click
			// before that finds no message to update at once, and the
			// post's own try updates it instead (one update, not two).
			eventually(t, "the question message posted and recorded", func() bool {
				return len(f.question("default", id)) == 1 &&
					strings.Contains(string(in.do("GET", "/jobs/"+id+"/events", nil).raw), `"channel":"slack","kind":"post"`)
			})
			q := f.question("default", id)[0]

			p, _ := json.Marshal(click("default", id, tc.user, "option_1", "o:1"))
			body := url.Values{"payload": {string(p)}}.Encode()
			header := signedNow(body)
			if code, raw := postInteraction(t, in, body, header); code != 200 {
				t.Fatalf("signed click: %d %s", code, raw)
			}
			eventually(t, "the job answered frozen", func() bool {
				j := in.do("GET", "/jobs/"+id, nil)
				return str(j.body, "clarificationAnswer") == "frozen" && str(j.body, "status") == tc.status
			})
			settledUpdate(t, f, q, "✅ Answered “frozen” by <@"+tc.user+"> in Slack.")
			// Everything the click set off has been sent and recorded:
			// its own update, the settle job's, and the outcome of a job
			// that ended.
			eventually(t, "the click's sends recorded in the job's events", func() bool {
				ev := string(in.do("GET", "/jobs/"+id+"/events", nil).raw)
				for _, s := range append([]string{`"channel":"slack","kind":"update"}`, `"channel":"slack","kind":"update","attempt":`}, tc.sent...) {
					if !strings.Contains(ev, s) {
						return false
					}
				}
				return true
			})
			job, events := in.do("GET", "/jobs/"+id, nil).raw, in.do("GET", "/jobs/"+id+"/events", nil).raw
			if n := strings.Count(string(events), `"type":"answered"`); n != 1 {
				t.Fatalf("%d answered events after the click; want 1\n%s", n, events)
			}
			updates := len(f.find("chat.update", nil))
			replies := len(f.find("chat.postMessage", func(v url.Values) bool { return v.Get("thread_ts") == q.form.Get("ts") }))

			if code, raw := postInteraction(t, in, body, header); code != 200 {
				t.Fatalf("replay: %d %s; want 200 (Slack retries what is not acknowledged)", code, raw)
			}
			eventually(t, "the replay told it is settled", func() bool {
				return len(f.find("chat.postEphemeral", func(v url.Values) bool {
					return v.Get("user") == tc.user && strings.Contains(v.Get("text"), "Already settled: ✅ Answered “frozen” by <@"+tc.user+">")
				})) == 1
			})
			if after := in.do("GET", "/jobs/"+id, nil).raw; string(after) != string(job) {
				t.Errorf("the replay changed the job:\nbefore %s\nafter  %s", job, after)
			}
			if after := in.do("GET", "/jobs/"+id+"/events", nil).raw; string(after) != string(events) {
				t.Errorf("the replay changed the events:\nbefore %s\nafter  %s", events, after)
			}
			if n := len(f.find("chat.update", nil)); n != updates {
				t.Errorf("%d chat.update after the replay; want %d, the message left as it was", n, updates)
			}
			if n := len(f.find("chat.postMessage", func(v url.Values) bool { return v.Get("thread_ts") == q.form.Get("ts") })); n != replies {
				t.Errorf("%d thread replies after the replay; want %d", n, replies)
			}
		})
	}
}
