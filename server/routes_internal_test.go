package server

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// Every route registered on the mux is in the OpenAPI document with its
// method, its path parameters and, for JSON routes, its schemas.
func TestOpenAPI_EveryRegisteredRouteIsDocumented(t *testing.T) {
	t.Parallel()
	s := New(Config{Engine: &askonce.Engine{}})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
			RequestBody map[string]any `json:"requestBody"`
			Responses   map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rt := range s.routes {
		op, ok := doc.Paths[rt.Path][strings.ToLower(rt.Method)]
		if !ok {
			t.Errorf("%s is registered but not documented", rt.pattern())
			continue
		}
		n++
		if strings.Contains(rt.Path, "{id}") {
			found := false
			for _, p := range op.Parameters {
				found = found || (p.Name == "id" && p.In == "path")
			}
			if !found {
				t.Errorf("%s: no path parameter id", rt.pattern())
			}
		}
		if (rt.Request != nil) != (op.RequestBody != nil) {
			t.Errorf("%s: request body documented %v, route has one %v", rt.pattern(), op.RequestBody != nil, rt.Request != nil)
		}
		if _, ok := op.Responses[strconv.Itoa(rt.Status)]; !ok {
			t.Errorf("%s: status %d not documented", rt.pattern(), rt.Status)
		}
	}
	ops := 0
	for _, item := range doc.Paths {
		ops += len(item)
	}
	if ops != n {
		t.Errorf("the document has %d operations, the mux %d routes", ops, n)
	}
}
