package askonce

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"
)

// checkSchema validates v against the subset of JSON Schema that plan specs
// need: type, properties, required, additionalProperties (boolean), enum,
// items, minimum, maximum, minLength, maxLength. Keywords outside the subset
// are ignored. It returns one message per violation, with its JSON path.
func checkSchema(schema json.RawMessage, v any) []string {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return []string{"spec schema is not a JSON object: " + err.Error()}
	}
	var errs []string
	walkSchema(s, v, "$", &errs)
	return errs
}

// ValidSchema reports whether schema is a JSON object usable as a spec
// schema.
func ValidSchema(schema json.RawMessage) error {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return Errorf(EINVALID, "spec schema is not a JSON object: %v", err)
	}
	return nil
}

func walkSchema(s map[string]any, v any, at string, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, at+": "+fmt.Sprintf(format, args...))
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		fail("expected %v, got %s", t, jsonType(v))
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, v) }) {
		fail("value is not one of the allowed values %v", enum)
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, present := x[name]; !present {
						fail("missing required property %q", name)
					}
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				walkSchema(ps, x[k], at+"."+k, errs)
			} else if ap, ok := s["additionalProperties"].(bool); ok && !ap {
				fail("property %q is not allowed", k)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				walkSchema(items, e, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	case float64:
		if m, ok := s["minimum"].(float64); ok && x < m {
			fail("%v is less than the minimum %v", x, m)
		}
		if m, ok := s["maximum"].(float64); ok && x > m {
			fail("%v is more than the maximum %v", x, m)
		}
	case string:
		n := float64(utf8.RuneCountInString(x))
		if m, ok := s["minLength"].(float64); ok && n < m {
			fail("string is shorter than %v", m)
		}
		if m, ok := s["maxLength"].(float64); ok && n > m {
			fail("string is longer than %v", m)
		}
	}
}

func typeMatches(t any, v any) bool {
	switch t := t.(type) {
	case string:
		got := jsonType(v)
		return got == t || (t == "number" && got == "integer")
	case []any:
		return slices.ContainsFunc(t, func(e any) bool { return typeMatches(e, v) })
	}
	return true
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
