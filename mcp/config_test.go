package mcp_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/mcp"
)

// A Config runs its tools on one of Engine or Client: naming neither, or
// both, is a programming error that New reports at once.
func TestNewWantsEngineOrClient(t *testing.T) {
	cl, err := client.New("http://askonce.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  mcp.Config
		want string
	}{
		{"Neither", mcp.Config{}, "Config.Engine or Config.Client is required"},
		{"Both", mcp.Config{Engine: &askonce.Engine{}, Client: cl}, "both set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("New panicked with %v; want a panic naming %q", r, c.want)
				}
			}()
			mcp.New(c.cfg)
		})
	}
}
