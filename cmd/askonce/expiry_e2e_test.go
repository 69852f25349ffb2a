package main_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Rule 15: an answer that arrives after its question's expiresAt is
// refused on every channel at that moment, though the sweep (an hour
// away here) has not expired the job yet; GET /jobs/{id} shows no
// answerUrl once the question expired. On each store.
func TestRule15_AnswerAfterExpiryIsRefusedOnEveryChannelBeforeTheSweep(t *testing.T) {
	for _, d := range sharedDBs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			in := start(t, nil, "--db", d.db(t), "--question-ttl", "2s", "--expiry-interval", "1h")
			channels := []string{"http answer", "http decline", "a2a", "answer page", "mcp"}
			ids, links := map[string]string{}, map[string]string{}
			var expiresAt time.Time
			for i, ch := range channels {
				r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "sessionId": fmt.Sprintf("s%d", i)})
				if r.status != 201 || str(r.body, "status") != "pending" || str(r.body, "answerUrl") == "" {
					t.Fatalf("create: %d %s", r.status, r.raw)
				}
				ids[ch], links[ch] = str(r.body, "jobId"), str(r.body, "answerUrl")
				at, err := time.Parse(time.RFC3339Nano, str(r.body, "clarificationExpiresAt"))
				if err != nil {
					t.Fatalf("clarificationExpiresAt of %s: %v", r.raw, err)
				}
				expiresAt = at
			}
			within(t, 10*time.Second, "the questions to expire", func() bool { return time.Now().After(expiresAt.Add(50 * time.Millisecond)) })

			if r := in.do("POST", "/jobs/"+ids["http answer"]+"/clarification", map[string]any{"answer": "hot"}); r.status != 409 || !strings.Contains(str(r.body, "error"), "expired") {
				t.Errorf("HTTP answer after expiry: %d %s; want 409 saying it expired", r.status, r.raw)
			}
			if r := in.do("POST", "/jobs/"+ids["http decline"]+"/decline", nil); r.status != 409 || !strings.Contains(str(r.body, "error"), "expired") {
				t.Errorf("HTTP decline after expiry: %d %s; want 409 saying it expired", r.status, r.raw)
			}
			a2a := in.do("POST", "/a2a", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
				"message": map[string]any{"kind": "message", "role": "user", "messageId": "m1", "taskId": ids["a2a"],
					"parts": []any{map[string]any{"kind": "text", "text": "hot"}}}}})
			if a2a.body["error"] == nil || a2a.body["result"] != nil {
				t.Errorf("A2A answer after expiry: %d %s; want a JSON-RPC error", a2a.status, a2a.raw)
			}
			form := url.Values{"answer": {"hot"}}
			resp, err := http.PostForm(links["answer page"], form)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusGone {
				t.Errorf("answer page POST after expiry: %d, want 410", resp.StatusCode)
			}
			c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "answer", Arguments: map[string]any{"jobId": ids["mcp"], "answer": "hot"}})
			if err != nil || !res.IsError {
				t.Errorf("MCP answer after expiry: %+v, %v; want a tool error", res, err)
			}

			for ch, id := range ids {
				g := in.do("GET", "/jobs/"+id, nil)
				if str(g.body, "status") != "pending" || str(g.body, "clarificationStatus") != "asked" {
					t.Errorf("%s: job after the refused answer: %s; want still pending and asked (the sweep expires it)", ch, g.raw)
				}
				if _, ok := g.body["answerUrl"]; ok {
					t.Errorf("%s: GET /jobs/{id} shows answerUrl after the question expired: %s", ch, g.raw)
				}
			}
		})
	}
}
