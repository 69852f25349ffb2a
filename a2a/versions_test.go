package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/askonce/askonce/a2a"
)

// Every interface the card lists plans the same way: a question makes the
// task input-required, the answer on the same task completes it with the
// plan, GetTask reads it back, and a second task is cancelled once.
func TestEveryInterfaceOfTheCardAsksOnceAndCompletesWithThePlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, iface := range []struct {
		version sdk.ProtocolVersion
		binding sdk.TransportProtocol
	}{
		{sdk.Version, sdk.TransportProtocolJSONRPC},
		{sdk.Version, sdk.TransportProtocolHTTPJSON},
		{a2av0.Version, sdk.TransportProtocolJSONRPC},
		{a2av0.Version, sdk.TransportProtocolHTTPJSON},
	} {
		t.Run(string(iface.version)+" "+string(iface.binding), func(t *testing.T) {
			c := e.clientOver(keyA, iface.version, iface.binding)
			ctx := context.Background()
			task := send(t, c, userText("", "", "hot frozen cheese"))
			if task.Status.State != sdk.TaskStateInputRequired {
				t.Fatalf("state %s; want input-required", task.Status.State)
			}
			if q := dataPart(t, task.Status.Message.Parts); q["type"] != "SELECT_ONE" || q["default"] != nil {
				t.Errorf("question %v; want SELECT_ONE, no default", q)
			}
			done := send(t, c, userText(task.ContextID, task.ID, "frozen"))
			if done.ID != task.ID || done.Status.State != sdk.TaskStateCompleted || temperature(t, done) != "frozen" {
				t.Fatalf("answered: %s %s; want %s completed, planned frozen", done.ID, done.Status.State, task.ID)
			}
			got, err := c.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID})
			if err != nil || got.Status.State != sdk.TaskStateCompleted || len(got.History) != 3 {
				t.Errorf("GetTask: %v, %+v; want completed with goal, question, answer", err, got)
			}
			other := send(t, c, userText("", "", "hot frozen cheese"))
			if got, err := c.CancelTask(ctx, &sdk.CancelTaskRequest{ID: other.ID}); err != nil || got.Status.State != sdk.TaskStateCanceled {
				t.Fatalf("CancelTask: %v, %+v; want canceled", err, got)
			}
			_, err = c.CancelTask(ctx, &sdk.CancelTaskRequest{ID: other.ID})
			// The SDK's 0.3 HTTP+JSON server sends its errors as
			// application/problem+json, which its 0.3 client reads only
			// as "server error": there, any error is the refusal.
			lossy := iface.version == a2av0.Version && iface.binding == sdk.TransportProtocolHTTPJSON
			if !errors.Is(err, sdk.ErrTaskNotCancelable) && (!lossy || err == nil) {
				t.Errorf("second CancelTask: %v; want task not cancelable", err)
			}
		})
	}
}

// post sends body to path with keyA and the A2A-Version header version
// ("" for none); it returns the status and the decoded JSON body.
func post(t *testing.T, base, path, version, body string) (int, map[string]any) {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + keyA}}
	if version != "" {
		h.Set("A2A-Version", version)
	}
	resp, out := postJSON(t, base+path, h, body)
	return resp.StatusCode, out
}

// postJSON posts body to url with header, and decodes the JSON answer.
func postJSON(t *testing.T, url string, header http.Header, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%d %s: not JSON: %v", resp.StatusCode, b, err)
	}
	return resp, out
}

// rpcCode is a JSON-RPC response's error code, 0 for none.
func rpcCode(out map[string]any) int {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return int(code)
}

// A2A-Version picks the version: 1.0's methods under "1.0", 0.3's under
// none (as the spec reads an empty version) or "0.3"; an unknown version
// is VersionNotSupportedError (-32009 on JSON-RPC, 400
// FAILED_PRECONDITION on HTTP+JSON), and nothing is started.
func TestA2AVersionPicksTheVersionAndAnUnknownOneIsVersionNotSupported(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const v1Send = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a cheese block"}]}}}`
	const v03Send = `{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"m2","role":"user","parts":[{"kind":"text","text":"a cheese block"}]}}}`
	for _, c := range []struct {
		name, version, body string
		code                int // 0: a result
	}{
		{"1.0 method under 1.0", "1.0", v1Send, 0},
		{"0.3 method without a version", "", v03Send, 0},
		{"0.3 method under 0.3", "0.3", v03Send, 0},
		{"1.0 method without a version is 0.3's: no such method", "", v1Send, -32601},
		{"0.3 method under 1.0", "1.0", v03Send, -32601},
		{"unknown version", "2.0", v1Send, -32009},
		{"not a version", "latest", v03Send, -32009},
	} {
		_, out := post(t, e.base, a2a.Path, c.version, c.body)
		if got := rpcCode(out); got != c.code || (c.code == 0 && out["result"] == nil) {
			t.Errorf("%s: %v; want code %d", c.name, out, c.code)
		}
	}
	status, out := post(t, e.base, a2a.RESTPath+"/message:send", "2.0", `{"message":{"messageId":"m3","role":"ROLE_USER","parts":[{"text":"a cheese block"}]}}`)
	body, _ := json.Marshal(out)
	if status != http.StatusBadRequest || !strings.Contains(string(body), "VERSION_NOT_SUPPORTED") {
		t.Errorf("HTTP+JSON with an unknown version: %d %s; want 400 VERSION_NOT_SUPPORTED", status, body)
	}
}

// Params of the wrong type are invalid params (-32602), not a parse error
// (-32700): the request was well-formed JSON. Malformed JSON stays a parse
// error.
func TestParamsOfTheWrongTypeAreInvalidParams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		version, body string
		code          int
	}{
		{"1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}`, -32602},
		{"1.0", `{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":7}]}}}`, -32602},
		{"1.0", `{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"messageId":"m","role":"nobody","parts":[]}}}`, -32602},
		{"1.0", `{"jsonrpc":"2.0","id":4,"method":"ListTasks","params":{"pageSize":"ten"}}`, -32602},
		{"", `{"jsonrpc":"2.0","id":5,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":["x"]}]}}}`, -32602},
		{"", `{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"id":{"x":1}}}`, -32602},
		{"1.0", `{"jsonrpc":"2.0","id":7,"method":"ListTasks","params":{"status":"TASK_STATE_SLEEPING"}}`, -32602},
		{"1.0", `{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":`, -32700},
	} {
		_, out := post(t, e.base, a2a.Path, c.version, c.body)
		if got := rpcCode(out); got != c.code {
			t.Errorf("%s: %v; want %d", c.body, out, c.code)
		}
	}
}

// SubscribeToTask follows a task until it settles; a task that has ended
// has nothing to follow: unsupported operation, as A2A 1.0 says.
func TestSubscribeToAnEndedTaskIsUnsupported(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	if _, err := c.CancelTask(context.Background(), &sdk.CancelTaskRequest{ID: task.ID}); err != nil {
		t.Fatal(err)
	}
	for _, err := range c.SubscribeToTask(context.Background(), &sdk.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, sdk.ErrUnsupportedOperation) {
			t.Fatalf("SubscribeToTask of a cancelled task: %v; want unsupported operation", err)
		}
		return
	}
	t.Fatal("SubscribeToTask of a cancelled task sent nothing; want unsupported operation")
}

// A body over Config.MaxBody is refused whole: 413 with a JSON-RPC error
// saying so, and nothing starts.
func TestBodyOverTheLimitIs413WithAJSONRPCError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"` + strings.Repeat("x", a2a.DefaultMaxBody) + `"}]}}}`
	status, out := post(t, e.base, a2a.Path, "", big)
	msg, _ := out["error"].(map[string]any)["message"].(string)
	if status != http.StatusRequestEntityTooLarge || rpcCode(out) != -32600 || !strings.Contains(msg, "larger than") {
		t.Fatalf("%d %v; want 413 with invalid request saying the body is too large", status, out)
	}
	if page, err := e.client(keyA).ListTasks(context.Background(), &sdk.ListTasksRequest{}); err != nil || len(page.Tasks) != 0 {
		t.Fatalf("tasks after the refused body: %v, %+v; want none", err, page)
	}
}

// Every well-formed request whose params carry a value of the wrong type
// somewhere (each leaf of a valid request of each method replaced by a
// number, a string, a boolean, an array, an object and null) gets a
// JSON-RPC answer that is not a parse error, nor an internal error: the
// request was JSON, and what is wrong is the caller's.
func TestParamsOfAnyWrongTypeAreNeverAParseOrInternalError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	valid := []struct{ version, method, params string }{
		{"1.0", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a cheese block"}],"contextId":"c"},"configuration":{"historyLength":1,"returnImmediately":true}}`},
		{"1.0", "GetTask", `{"id":"t","historyLength":2}`},
		{"1.0", "ListTasks", `{"contextId":"c","status":"TASK_STATE_COMPLETED","pageSize":2,"pageToken":"0:","includeArtifacts":true}`},
		{"1.0", "CancelTask", `{"id":"t"}`},
		{"1.0", "GetTaskPushNotificationConfig", `{"taskId":"t","id":"p"}`},
		{"", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"a cheese block"}]},"configuration":{"blocking":false}}`},
		{"", "tasks/get", `{"id":"t","historyLength":2}`},
		{"", "tasks/cancel", `{"id":"t"}`},
	}
	wrong := []any{7, "x", true, []any{1}, map[string]any{"x": 1}, nil}
	tried, bad := 0, 0
	for _, v := range valid {
		var params any
		if err := json.Unmarshal([]byte(v.params), &params); err != nil {
			t.Fatal(err)
		}
		for _, mutated := range mutations(params, wrong) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": v.method, "params": mutated})
			_, out := post(t, e.base, a2a.Path, v.version, string(body))
			tried++
			if code := rpcCode(out); code == -32700 || code == -32603 {
				bad++
				if bad <= 5 {
					t.Errorf("%s: %v", body, out)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d requests with a wrong-typed value were a parse or internal error", bad, tried)
	}
	t.Logf("%d requests with a wrong-typed value, none a parse or internal error", tried)
}

// mutations are v with one leaf (a value that is not an object or an
// array, or an empty one) replaced by each of wrong, in turn.
func mutations(v any, wrong []any) []any {
	var out []any
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			for _, m := range mutations(child, wrong) {
				c := maps.Clone(x)
				c[k] = m
				out = append(out, c)
			}
		}
	case []any:
		for i, child := range x {
			for _, m := range mutations(child, wrong) {
				c := slices.Clone(x)
				c[i] = m
				out = append(out, c)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, w := range wrong {
		if fmt.Sprint(w) != fmt.Sprint(v) {
			out = append(out, w)
		}
	}
	return out
}
