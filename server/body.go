package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/askonce/askonce/api"
	"github.com/askonce/askonce/internal/maxbody"
)

// readBody reads a POST body: at most maxBody bytes (413 too_large
// beyond, after reading and discarding up to maxbody.Discard times as
// much, so that a client still sending sees the status); a non-empty body must be JSON or have no Content-Type (415
// otherwise) and valid UTF-8 (400 otherwise). An empty body may carry any
// Content-Type, so that a bare POST (cancel, decline) always works.
func readBody(w http.ResponseWriter, r *http.Request, maxBody int64) ([]byte, error) {
	body, err := io.ReadAll(maxbody.Reader(w, r, maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, reqErrorf(http.StatusRequestEntityTooLarge, api.CodeTooLarge, "request body is larger than %d bytes", maxBody)
		}
		return nil, badRequest("reading the request body failed: %v", err)
	}
	if len(body) == 0 {
		return body, nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && ct != "application/json" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
			return nil, reqErrorf(http.StatusUnsupportedMediaType, api.CodeUnsupportedMedia, "Content-Type %q is not supported; send application/json", ct)
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, reqErrorf(http.StatusUnsupportedMediaType, api.CodeUnsupportedMedia, "charset %q is not supported; send UTF-8", cs)
		}
	}
	if !utf8.Valid(body) {
		return nil, badRequest("request body is not valid UTF-8")
	}
	return body, nil
}

// decode parses body into v strictly: one JSON object, no unknown fields,
// no trailing data. An empty body is allowed only when optional. Every
// failure is a 400 bad_request naming the problem.
func decode(body []byte, v any, optional bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return badRequest("request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, v)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("request body has data after its JSON object")
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("null")) {
		return badRequest("request body is null; send a JSON object")
	}
	return nil
}

func decodeError(err error, v any) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badRequest("request body is not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("request body is not valid JSON: it ends too early")
	case errors.As(err, &te) && te.Field != "":
		return badRequest("field %q must be %s, not %s", te.Field, jsonKind(te.Type), te.Value)
	case errors.As(err, &te):
		return badRequest("request body must be a JSON object, not %s", te.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return badRequest("unknown field %s; the fields are: %s", name, strings.Join(jsonFields(reflect.TypeOf(v)), ", "))
	}
	return badRequest("request body is not valid: %v", err)
}

// jsonKind names a Go type the way a JSON user would.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// jsonFields lists the JSON names of a struct's fields.
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for _, f := range structFields(t) {
		names = append(names, f.name)
	}
	return names
}
