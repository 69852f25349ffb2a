package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// The OpenAPI 3.1 document is generated from the route table and, by
// reflection, from the Go types of the bodies: a struct is an object whose
// properties are its JSON names, required unless omitempty (a slice
// without omitempty may be null, as encoding/json writes a nil slice);
// named string types of askonce's enums list their values. Nothing is written by hand,
// so the document cannot drift from the code.

// field is one JSON property of a struct.
type field struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// structFields lists the JSON properties of a struct type the way
// encoding/json sees them: exported fields, named by their json tag,
// skipping "-", with untagged embedded structs flattened.
func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, structFields(et)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, omitempty: strings.Contains(","+opts+",", ",omitempty,"), typ: f.Type})
	}
	return out
}

// enumValues lists the values of askonce's enum types.
var enumValues = map[reflect.Type][]string{
	reflect.TypeFor[askonce.Status]():              enum(askonce.Statuses...),
	reflect.TypeFor[askonce.ClarificationStatus](): enum(askonce.ClarificationStatuses...),
	reflect.TypeFor[askonce.Source](): enum(askonce.SourceUser, askonce.SourceHistory, askonce.SourceResolver,
		askonce.SourceDefault, askonce.SourceTimeout),
	reflect.TypeFor[askonce.Mode]():         enum(askonce.ModeManaged, askonce.ModeGate),
	reflect.TypeFor[askonce.MemoryScope]():  enum(askonce.MemoryScopes...),
	reflect.TypeFor[askonce.HardCap]():      enum(askonce.HardCapFallback, askonce.HardCapFail),
	reflect.TypeFor[askonce.QuestionType](): enum(askonce.QuestionTypes...),
	reflect.TypeFor[askonce.TextFormat]():   enum(askonce.TextFormats...),
	reflect.TypeFor[askonce.Action](): enum(askonce.ActionAsk, askonce.ActionWait, askonce.ActionResume,
		askonce.ActionProceed, askonce.ActionDone, askonce.ActionFail),
	reflect.TypeFor[askonce.DispatchStatus](): enum(askonce.DispatchQueued, askonce.DispatchDelivered, askonce.DispatchFailed, askonce.DispatchNoBuilder),
	reflect.TypeFor[askonce.AttemptReason](): enum(askonce.ReasonInitial, askonce.ReasonRetryParseError,
		askonce.ReasonRetryValidation, askonce.ReasonClarificationAnswer, askonce.ReasonFallback, askonce.ReasonReport),
	reflect.TypeFor[askonce.AttemptOutcome](): enum(askonce.AttemptPlan, askonce.AttemptQuestion,
		askonce.AttemptInvalid, askonce.AttemptError),
}

// schemaRules add what struct tags cannot say to a type's schema: which
// of several optional fields a request needs, the limits of a list, and
// the enum of a plain string field.
var schemaRules = map[reflect.Type]func(obj map[string]any){
	// POST /jobs needs a goal (or its alias prompt).
	reflect.TypeFor[api.CreateJobRequest](): func(obj map[string]any) {
		obj["anyOf"] = []any{
			map[string]any{"required": []string{"goal"}},
			map[string]any{"required": []string{"prompt"}},
		}
		candidatesLimits(obj)
	},
	reflect.TypeFor[api.JobView](): func(obj map[string]any) {
		candidatesLimits(obj)
		fieldsLimit(obj, "clarificationFields")
	},
	reflect.TypeFor[askonce.Question](): func(obj map[string]any) { fieldsLimit(obj, "fields") },
	// A report carries exactly one of question, plan or error.
	reflect.TypeFor[api.ReportRequest](): func(obj map[string]any) {
		obj["oneOf"] = []any{
			map[string]any{"required": []string{"question"}},
			map[string]any{"required": []string{"plan"}},
			map[string]any{"required": []string{"error"}},
		}
	},
	reflect.TypeFor[api.ErrorResponse](): func(obj map[string]any) {
		obj["properties"].(map[string]any)["code"] = map[string]any{"type": "string", "enum": api.ErrorCodes}
	},
}

// candidatesLimits states askonce.ValidateCandidates's limits on an
// object's candidates. maxLength counts characters where the limit counts
// bytes, so a name within maxLength may still be refused.
func candidatesLimits(obj map[string]any) {
	p := obj["properties"].(map[string]any)["candidates"].(map[string]any)
	p["maxItems"] = askonce.MaxCandidates
	p["description"] = fmt.Sprintf("names of the things besides files the goal may refer to (objects, environments, branches, tables): at most %d, each at most %d bytes of visible UTF-8 text", askonce.MaxCandidates, askonce.MaxCandidateBytes)
	items := p["items"].(map[string]any)
	items["minLength"] = 1
	items["maxLength"] = askonce.MaxCandidateBytes
}

// fieldsLimit states askonce.MaxFields on an object's list of question
// fields, prop.
func fieldsLimit(obj map[string]any, prop string) {
	obj["properties"].(map[string]any)[prop].(map[string]any)["maxItems"] = askonce.MaxFields
}

func enum[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	durType     = reflect.TypeFor[time.Duration]()
	rawJSONType = reflect.TypeFor[json.RawMessage]()
	answerType  = reflect.TypeFor[api.Answer]()
)

// schemas builds component schemas, one per named struct type.
type schemas struct {
	defs  map[string]any
	names map[reflect.Type]string
}

// of returns the schema of t: a $ref for named structs, inline otherwise.
func (g *schemas) of(t reflect.Type) map[string]any {
	switch t {
	case timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case durType:
		return map[string]any{"type": "integer", "format": "int64", "description": "nanoseconds"}
	case rawJSONType:
		return map[string]any{"description": "any JSON value"}
	case answerType:
		value := []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "number"},
			map[string]any{"type": "boolean"},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}
		return map[string]any{"description": "the answer: a value of the question's type (a string for FREE_TEXT and TARGET_FILE; a boolean or yes/no for CONFIRM; a number for NUMBER; an option's value for SELECT_ONE; a list of option values for SELECT_MANY; a string spelling a value of the type is read as it), or, for a question with fields, an object of a value per field (null leaves an optional field to its default)",
			"oneOf": append(value,
				map[string]any{"type": "object", "additionalProperties": map[string]any{"oneOf": append(value, map[string]any{"type": "null"})}},
			)}
	}
	if vs, ok := enumValues[t]; ok {
		return map[string]any{"type": "string", "enum": vs}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name, ok := g.names[t]
		if !ok {
			name = t.Name()
			for taken := range g.names {
				if g.names[taken] == name {
					panic(fmt.Sprintf("server: two schema types named %s (%s and %s)", name, taken, t))
				}
			}
			g.names[t] = name
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

func (g *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range structFields(t) {
		props[f.name] = g.of(f.typ)
		if f.typ.Kind() == reflect.Slice && f.typ != rawJSONType && f.typ != answerType && !f.omitempty {
			// encoding/json writes a nil slice as null.
			props[f.name].(map[string]any)["type"] = []string{"array", "null"}
		}
		if !f.omitempty {
			required = append(required, f.name)
		}
	}
	obj := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		obj["required"] = required
	}
	if rule := schemaRules[t]; rule != nil {
		rule(obj)
	}
	return obj
}

// openAPI builds the document from the route table.
func (s *Server) openAPI() map[string]any {
	g := &schemas{defs: map[string]any{}, names: map[reflect.Type]string{}}
	errRef := g.of(reflect.TypeFor[api.ErrorResponse]())
	paths := map[string]any{}
	for _, rt := range s.routes {
		op := map[string]any{
			"operationId": operationID(rt),
			"summary":     rt.Summary,
		}
		switch {
		case rt.Public:
			op["security"] = []any{}
		case s.keys != nil:
			op["security"] = []any{map[string]any{"bearer": []any{}}, map[string]any{"apiKey": []any{}}}
		default:
			// Served without API keys: a key is accepted but not needed.
			op["security"] = []any{map[string]any{"bearer": []any{}}, map[string]any{"apiKey": []any{}}, map[string]any{}}
		}
		var params []any
		for _, seg := range strings.Split(rt.Path, "/") {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				params = append(params, map[string]any{"name": strings.TrimSuffix(name, "}"), "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			}
		}
		for _, p := range rt.Query {
			params = append(params, map[string]any{"name": p.Name, "in": "query", "description": p.Description, "schema": map[string]any{"type": p.Type}})
		}
		for _, p := range rt.Header {
			params = append(params, map[string]any{"name": p.Name, "in": "header", "description": p.Description, "schema": map[string]any{"type": p.Type}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if rt.Request != nil {
			op["requestBody"] = map[string]any{
				"required": !rt.BodyOptional,
				"content":  map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(rt.Request))}},
			}
		}
		ok := map[string]any{"description": http.StatusText(rt.Status)}
		switch {
		case rt.Response != nil:
			content := map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(rt.Response))}}
			if rt.Stream {
				content["text/event-stream"] = map[string]any{"schema": map[string]any{"type": "string",
					"description": "Server-Sent Events: id = event id, event = event type, data = the Event as JSON"}}
			}
			ok["content"] = content
		case rt.ContentType == "application/json":
			ok["content"] = map[string]any{rt.ContentType: map[string]any{"schema": map[string]any{"type": "object"}}}
		case rt.ContentType != "":
			ok["content"] = map[string]any{rt.ContentType: map[string]any{"schema": map[string]any{"type": "string"}}}
		}
		responses := map[string]any{strconv.Itoa(rt.Status): ok}
		for _, code := range rt.AlsoStatus {
			also := map[string]any{"description": http.StatusText(code)}
			if c, found := ok["content"]; found {
				also["content"] = c
			}
			responses[strconv.Itoa(code)] = also
		}
		if rt.Async {
			responses[strconv.Itoa(http.StatusAccepted)] = map[string]any{
				"description": "Planning goes on in the background (Prefer: respond-async, or the wait ran out): the job as committed, status planning. Follow it at Location, with GET /jobs/{id} or its event stream.",
				"headers": map[string]any{"Location": map[string]any{"description": "/jobs/{id} of the job", "schema": map[string]any{"type": "string"}},
					"Preference-Applied": map[string]any{"description": "respond-async or wait=N when that preference was honoured", "schema": map[string]any{"type": "string"}}},
				"content": map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(api.JobView{}))}},
			}
		}
		for _, code := range rt.Errors {
			responses[strconv.Itoa(code)] = map[string]any{"description": http.StatusText(code),
				"content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
			if code == http.StatusUnauthorized {
				responses["429"] = map[string]any{"description": "Too many wrong API keys from the client's address; a valid key is still served.",
					"headers": map[string]any{"Retry-After": map[string]any{"description": "seconds until a wrong key is answered 401 again", "schema": map[string]any{"type": "integer"}}},
					"content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
			}
		}
		// Every operation answers 503 while the store cannot be reached.
		if _, ok := responses["503"]; !ok {
			responses["503"] = map[string]any{"description": "The database cannot be reached (code unavailable), or the request timed out: retry after Retry-After seconds.",
				"headers": map[string]any{"Retry-After": map[string]any{"description": "seconds to wait before retrying", "schema": map[string]any{"type": "integer"}}},
				"content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
		}
		// Every path answers 404 for a path it does not serve (and, with
		// an id, for a job that does not exist) and 405 for a method it
		// does not serve.
		if _, ok := responses["404"]; !ok {
			responses["404"] = map[string]any{"$ref": "#/components/responses/NotFound"}
		}
		responses["405"] = map[string]any{"$ref": "#/components/responses/MethodNotAllowed"}
		responses["default"] = map[string]any{"description": "Error",
			"content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
		op["responses"] = responses

		item, _ := paths[rt.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "askonce",
			"version":     "1",
			"description": "Turns a goal into a validated plan, asking a human at most one typed clarifying question. Errors are {success: false, error, code}.",
			"license":     map[string]any{"name": License, "identifier": License},
		},
		"servers": []any{map[string]any{"url": s.serverURL(), "description": "this askonce server"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.defs,
			"responses": map[string]any{
				"NotFound": map[string]any{"description": "No such route, or no such job (or another tenant's): code not_found.",
					"content": map[string]any{"application/json": map[string]any{"schema": errRef}}},
				"MethodNotAllowed": map[string]any{"description": "The path is served for other methods: code method_not_allowed.",
					"headers": map[string]any{"Allow": map[string]any{"description": "the methods the path serves", "schema": map[string]any{"type": "string"}}},
					"content": map[string]any{"application/json": map[string]any{"schema": errRef}}},
			},
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer"},
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
			},
		},
	}
	if s.keys != nil {
		doc["security"] = []any{map[string]any{"bearer": []any{}}, map[string]any{"apiKey": []any{}}}
	}
	return doc
}

// License is the SPDX identifier of the licence (the repository's
// LICENSE file) named in the OpenAPI document's info.
const License = "Apache-2.0"

// serverURL is the document's server: the public URL when one is set,
// else "/" (the host that served the document).
func (s *Server) serverURL() string {
	if s.publicURL != "" {
		return s.publicURL
	}
	return "/"
}

// operationID names an operation from its method and path:
// "POST /jobs/{id}/clarification" -> "postJobsIdClarification".
func operationID(rt *route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.Method))
	for _, seg := range strings.FieldsFunc(rt.Path, func(r rune) bool { return r == '/' || r == '{' || r == '}' || r == '.' }) {
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}
