package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/cmd/askonce/internal/wiring"
	"github.com/askonce/askonce/internal/buildinfo"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/mcp"
)

const mcpSummary = `Serves askonce's MCP tools (plan, ask_user, report_plan, answer, get_job,
list_pending) over stdio, for an MCP client that starts it as a
subprocess: the embedded engine on the --db file (by default the one
askonce run uses), or, with --server, a running askonce (with --api-key).
See docs/mcp.md.`

// mcpCommand is askonce mcp: the MCP server over stdio.
func mcpCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := &cli.Conn{}
	s := cli.NewSettings("mcp", mcpSummary, getenv, stderr)
	c.Flags(s)
	s.SetUsage("mcp [flags]", mcpSummary)
	if _, err := s.ParseArgs(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := mcp.Config{Version: buildinfo.Get(), Logger: log}
	if c.Server != "" {
		cl, err := client.New(c.Server, client.WithAPIKey(c.APIKey))
		if err != nil {
			return cli.UsageError{Msg: "--server: " + err.Error()}
		}
		cfg.Client = cl
	} else {
		interp, err := wiring.NewInterpreter(c.Interpreter, c.ProfileFiles, getenv)
		if err != nil {
			return err
		}
		db, err := wiring.EmbeddedDB(c)
		if err != nil {
			return err
		}
		st, _, err := wiring.OpenStore(ctx, db, wiring.StoreHooks{})
		if err != nil {
			return err
		}
		defer st.Close()
		engine := &askonce.Engine{Store: st, Interpreter: interp, Logger: log, NoBuilder: true}
		engine.ExpireDue(ctx)
		defer engine.Drain(context.WithoutCancel(ctx))
		cfg.Engine = engine
	}
	server := mcp.New(cfg)
	if err := server.Run(ctx, &mcp.Stdio{Reader: stdin, Writer: stdout}); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
