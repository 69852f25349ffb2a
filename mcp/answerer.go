package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askonce/askonce"
)

// answering returns ctx carrying the Answerer of an answer given through
// req: MCP, by the client's name. (A backend over the HTTP API records
// its own channel instead.)
func answering(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	a := askonce.Answerer{Via: askonce.ViaMCP}
	if req != nil && req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			a.By = ip.ClientInfo.Name
		}
	}
	return askonce.WithAnswerer(ctx, a)
}
