// Package openapitest checks live HTTP responses against askonce's OpenAPI
// document, for the server's tests and the end-to-end tests of the built
// binary, so that the contract and the server cannot drift. It loads and
// validates the document with kin-openapi and checks each response with
// openapi3filter.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Contract is a loaded and validated OpenAPI document and a router over
// it. It is safe for concurrent use once loaded.
type Contract struct {
	Doc    *openapi3.T
	router routers.Router
}

// Load parses an OpenAPI document, validates it, and routes requests whose
// URL starts with serverURL (the server under test) to its operations.
func Load(raw []byte, serverURL string) (*Contract, error) {
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate the OpenAPI document: %w", err)
	}
	routed := *doc
	routed.Servers = openapi3.Servers{{URL: serverURL}}
	router, err := legacy.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	return &Contract{Doc: doc, router: router}, nil
}

// Fetch loads the document a server serves at /openapi.json.
func Fetch(client *http.Client, serverURL string) (*Contract, error) {
	resp, err := client.Get(serverURL + "/openapi.json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /openapi.json: %d %.200s", resp.StatusCode, raw)
	}
	return Load(raw, serverURL)
}

// Validate checks one response against the document: the operation's
// status, headers and body schema, or, for a 404 or 405 to a request no
// operation matches, the ErrorResponse schema. Event streams and the
// responses of handlers mounted beside the API (the web pages, which
// answer HTML) are not part of the contract and pass.
func (c *Contract) Validate(req *http.Request, status int, header http.Header, body []byte) error {
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		return nil
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// No operation: the API's own 404 or 405 (JSON), or a page
		// mounted beside the API, which answers HTML.
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed ||
			!strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			return nil
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return fmt.Errorf("the %d body is not JSON: %w", status, err)
		}
		if err := c.Doc.Components.Schemas["ErrorResponse"].Value.VisitJSON(v); err != nil {
			return fmt.Errorf("the %d body is not an ErrorResponse: %w", status, err)
		}
		return nil
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	})
}
