package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The version a release build stamps is the one every channel reports:
// /healthz, the MCP server info and the A2A Agent Card (askonce version
// is TestCLI/VersionPrintsTheStampedVersionAndRevision).
func serveEveryChannelReportsTheStampedVersion(t *testing.T) {
	t.Parallel()
	in := start(t, nil)
	getJSON := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(in.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var health struct{ Version string }
	getJSON("/healthz", &health)
	if health.Version != stampedVersion {
		t.Errorf("/healthz version %q, want %q", health.Version, stampedVersion)
	}
	var card struct{ Version string }
	getJSON("/.well-known/agent-card.json", &card)
	if card.Version != stampedVersion {
		t.Errorf("Agent Card version %q, want %q", card.Version, stampedVersion)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Version; got != stampedVersion {
		t.Errorf("MCP server info version %q, want %q", got, stampedVersion)
	}
}
