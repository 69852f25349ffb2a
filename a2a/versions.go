package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	legacy "github.com/a2aproject/a2a-go/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/askonce/askonce/internal/refusal"
)

// versions routes a request to the SDK's server of the A2A version it
// asks for in its A2A-Version header, as A2A 1.0's versioning rules say:
// none is 0.3, an unknown one is VersionNotSupportedError.
type versions struct {
	rpc, rpc03             http.Handler
	rpcStream, rpc03Stream http.Handler // of the streaming methods
	rest, rest03           http.Handler
}

func newVersions(h a2asrv.RequestHandler, log *slog.Logger) versions {
	// A panic in a request is a bug: an internal error to the caller,
	// logged with its stack, not a 500 without a JSON-RPC answer. Not on
	// a JSON-RPC stream: after a panic's error event the SDK keeps the
	// stream open until the client leaves; without a handler the panic
	// ends the connection.
	panicked := a2asrv.WithTransportPanicHandler(func(r any) error {
		log.Error("a2a: panic serving a request", "panic", r, "stack", string(debug.Stack()))
		return fmt.Errorf("%w: the request failed", sdk.ErrInternalError)
	})
	return versions{
		rpc:         a2asrv.NewJSONRPCHandler(h, panicked),
		rpc03:       a2av0.NewJSONRPCHandler(h, panicked),
		rpcStream:   a2asrv.NewJSONRPCHandler(h),
		rpc03Stream: a2av0.NewJSONRPCHandler(h),
		rest:        http.StripPrefix(RESTPath, a2asrv.NewRESTHandler(h, panicked)),
		rest03:      http.StripPrefix(RESTPath, a2av0.NewRESTHandler(h, panicked)),
	}
}

// isREST reports whether r is to the HTTP+JSON endpoint.
func isREST(r *http.Request) bool {
	return r.URL.Path == RESTPath || strings.HasPrefix(r.URL.Path, RESTPath+"/")
}

// versionOf is the major.minor of an A2A-Version header, "" for one that
// is not a version.
func versionOf(h string) string {
	h = strings.TrimSpace(h)
	if h == "" {
		return LegacyProtocolVersion
	}
	parts := strings.Split(h, ".")
	if len(parts) < 2 {
		return ""
	}
	return parts[0] + "." + parts[1]
}

func (v versions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	asked := r.Header.Get(sdk.SvcParamVersion)
	version := versionOf(asked)
	if isREST(r) {
		// The two versions' HTTP+JSON routes differ (0.3's are under /v1),
		// so the path picks the version a request without one means.
		legacyRoute := strings.HasPrefix(r.URL.Path, RESTPath+a2av0.RESTPathPrefix+"/")
		rw := &restErrors{refusal.Writer{ResponseWriter: w}}
		defer rw.finish()
		w = rw
		switch {
		case version == ProtocolVersion && !legacyRoute, asked == "" && !legacyRoute:
			v.rest.ServeHTTP(w, r)
		case version == LegacyProtocolVersion && legacyRoute:
			v.rest03.ServeHTTP(w, r)
		default:
			restVersionError(w, asked)
		}
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			writeRPCError(w, nil, -32600, "INVALID_REQUEST", fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit))
			return
		}
		writeRPCError(w, nil, -32700, "PARSE_ERROR", "the request body could not be read: "+err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var env struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	parsed := json.Unmarshal(body, &env) == nil
	// What is not a JSON-RPC request object is refused here, the same in
	// both versions: the SDK calls an array or a string invalid params.
	// (A body the envelope took is JSON: only one it did not take is
	// scanned again.)
	switch {
	case !parsed && !json.Valid(body):
		writeRPCError(w, nil, -32700, "PARSE_ERROR", "the request body is not JSON")
		return
	case !isObject(body):
		writeRPCError(w, nil, -32600, "INVALID_REQUEST", "the request body is not a JSON-RPC request object")
		return
	}
	var params map[string]func() any
	var h http.Handler
	stream := streaming[env.Method]
	switch {
	case version == ProtocolVersion && stream:
		h, params = v.rpcStream, paramsOf
	case version == ProtocolVersion:
		h, params = v.rpc, paramsOf
	case version == LegacyProtocolVersion && stream:
		h, params = v.rpc03Stream, legacyParamsOf
	case version == LegacyProtocolVersion:
		h, params = v.rpc03, legacyParamsOf
	default:
		var id any
		if parsed {
			id = env.ID
		}
		writeRPCError(w, id, -32009, "VERSION_NOT_SUPPORTED", fmt.Sprintf("A2A-Version %q is not supported: send %q (or none for %s)", asked, ProtocolVersion, LegacyProtocolVersion))
		return
	}
	// The SDK calls a well-formed request whose params do not decode a
	// parse error; JSON-RPC calls it invalid params. A 1.0 request that
	// is not a stream is decoded by the SDK alone, and its answer held:
	// only a parse error is decoded again here, to answer invalid params
	// instead. The others are checked before the SDK sees them.
	newParams, known := params[env.Method]
	known = known && parsed
	if known && (version != ProtocolVersion || stream) && !v.paramsDecode(w, env.ID, env.Method, env.Params, newParams) {
		return
	}
	// The SDK's 0.3 layer sends its errors without a content type; its
	// results and streams set their own.
	w.Header().Set("Content-Type", "application/json")
	if !known || version != ProtocolVersion || stream {
		h.ServeHTTP(w, r)
		return
	}
	held := &heldResponse{ResponseWriter: w}
	h.ServeHTTP(held, r)
	if held.parseError() && !v.paramsDecode(w, env.ID, env.Method, env.Params, newParams) {
		return
	}
	held.flush()
}

// paramsDecode decodes a request's params into newParams' type and, if
// they do not decode (or, in 0.3, carry no message), answers invalid
// params and returns false.
func (versions) paramsDecode(w http.ResponseWriter, id any, method string, raw json.RawMessage, newParams func() any) bool {
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	p := newParams()
	if err := json.Unmarshal(raw, p); err != nil {
		writeRPCError(w, id, -32602, "INVALID_PARAMS", fmt.Sprintf("invalid params of %s: %v", method, err))
		return false
	}
	// The SDK's 0.3 layer reads a message it does not check for.
	if m, ok := p.(*legacy.MessageSendParams); ok && m.Message == nil {
		writeRPCError(w, id, -32602, "INVALID_PARAMS", fmt.Sprintf("invalid params of %s: message is required", method))
		return false
	}
	return true
}

// heldResponse holds the SDK's answer to a request that is not a stream
// until it is known not to be a parse error of its params.
type heldResponse struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldResponse) Write(b []byte) (int, error) { return h.body.Write(b) }

// parseError reports whether the held answer is a JSON-RPC parse error.
func (h *heldResponse) parseError() bool {
	if !bytes.Contains(h.body.Bytes(), []byte("-32700")) {
		return false
	}
	var resp struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(h.body.Bytes(), &resp) == nil && resp.Error != nil && resp.Error.Code == -32700
}

// flush sends the held answer.
func (h *heldResponse) flush() {
	if h.status != 0 {
		h.ResponseWriter.WriteHeader(h.status)
	}
	h.ResponseWriter.Write(h.body.Bytes())
}

// isObject reports whether JSON text is an object.
func isObject(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// streaming are the JSON-RPC methods, of either version, that answer
// with an event stream.
var streaming = map[string]bool{"SendStreamingMessage": true, "SubscribeToTask": true, "message/stream": true, "tasks/resubscribe": true}

// paramsOf and legacyParamsOf are the params each JSON-RPC method of A2A
// 1.0 and 0.3 takes.
var (
	paramsOf = map[string]func() any{
		"SendMessage":                      func() any { return new(sdk.SendMessageRequest) },
		"SendStreamingMessage":             func() any { return new(sdk.SendMessageRequest) },
		"GetTask":                          func() any { return new(sdk.GetTaskRequest) },
		"ListTasks":                        func() any { return new(sdk.ListTasksRequest) },
		"CancelTask":                       func() any { return new(sdk.CancelTaskRequest) },
		"SubscribeToTask":                  func() any { return new(sdk.SubscribeToTaskRequest) },
		"CreateTaskPushNotificationConfig": func() any { return new(sdk.PushConfig) },
		"GetTaskPushNotificationConfig":    func() any { return new(sdk.GetTaskPushConfigRequest) },
		"ListTaskPushNotificationConfigs":  func() any { return new(sdk.ListTaskPushConfigRequest) },
		"DeleteTaskPushNotificationConfig": func() any { return new(sdk.DeleteTaskPushConfigRequest) },
		"GetExtendedAgentCard":             func() any { return new(sdk.GetExtendedAgentCardRequest) },
	}
	legacyParamsOf = map[string]func() any{
		"message/send":                     func() any { return new(legacy.MessageSendParams) },
		"message/stream":                   func() any { return new(legacy.MessageSendParams) },
		"tasks/get":                        func() any { return new(legacy.TaskQueryParams) },
		"tasks/cancel":                     func() any { return new(legacy.TaskIDParams) },
		"tasks/resubscribe":                func() any { return new(legacy.TaskIDParams) },
		"tasks/pushNotificationConfig/set": func() any { return new(legacy.TaskPushConfig) },
		"tasks/pushNotificationConfig/get": func() any { return new(legacy.GetTaskPushConfigParams) },
		"tasks/pushNotificationConfig/list": func() any {
			return new(legacy.ListTaskPushConfigParams)
		},
		"tasks/pushNotificationConfig/delete": func() any { return new(legacy.DeleteTaskPushConfigParams) },
	}
)

// errorInfo is the google.rpc.ErrorInfo detail A2A 1.0 errors carry.
func errorInfo(reason string) map[string]any {
	return map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": sdk.ProtocolDomain}
}

// writeRPCError answers a JSON-RPC request with an error of code.
func writeRPCError(w http.ResponseWriter, id any, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg, "data": []any{errorInfo(reason)}}})
}

// restErrors turns a plain-text refusal of the SDK's HTTP+JSON routes
// (an unknown route, a method a route does not take) into the binding's
// JSON error of the same status; everything else passes through.
type restErrors struct{ refusal.Writer }

// grpcStatus names an HTTP status as the HTTP+JSON binding's errors do.
var grpcStatus = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusUnauthorized: "UNAUTHENTICATED",
	http.StatusForbidden: "PERMISSION_DENIED", http.StatusNotFound: "NOT_FOUND",
	http.StatusMethodNotAllowed: "UNIMPLEMENTED", http.StatusConflict: "ABORTED",
	http.StatusRequestEntityTooLarge: "INVALID_ARGUMENT", http.StatusTooManyRequests: "RESOURCE_EXHAUSTED",
}

// finish sends the refusal held back, if any, as the binding's error.
func (w *restErrors) finish() {
	code, msg := w.Held()
	if code == 0 {
		return
	}
	status := grpcStatus[code]
	if status == "" {
		status = "UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json")
	w.ResponseWriter.WriteHeader(code)
	json.NewEncoder(w.ResponseWriter).Encode(map[string]any{"error": map[string]any{"code": code, "status": status, "message": msg}})
}

// restVersionError answers an HTTP+JSON request of a version (or on a
// route) this endpoint does not speak, as A2A 1.0's HTTP+JSON binding
// does.
func restVersionError(w http.ResponseWriter, asked string) {
	msg := fmt.Sprintf("A2A-Version %q is not supported on this route: A2A %s is served under %s, A2A %s under %s", asked, ProtocolVersion, RESTPath, LegacyProtocolVersion, RESTPath+a2av0.RESTPathPrefix)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": http.StatusBadRequest, "status": "FAILED_PRECONDITION", "message": msg, "details": []any{errorInfo("VERSION_NOT_SUPPORTED")}}})
}
