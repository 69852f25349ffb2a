package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/terminal"
)

//go:generate sh -c "go run . help flags > ../../docs/flags.md"

// flagsDocCommands are the commands docs/flags.md lists, in its order:
// the server first, then the terminal client, then the tools.
func flagsDocCommands() [][]string {
	cmds := [][]string{{"serve"}, {"run"}, {"repl"}}
	for _, sub := range terminal.JobsCommands {
		cmds = append(cmds, []string{"jobs", sub})
	}
	return append(cmds, []string{"memory", "list"}, []string{"memory", "forget"},
		[]string{"mcp"}, []string{"eval"}, []string{"bench"}, []string{"health"})
}

// flagsDoc is docs/flags.md: every command's flags, their variables and
// defaults, read from the definitions the commands parse with (askonce
// help flags prints it; go generate writes it; a test fails when the file
// differs).
func flagsDoc(ctx context.Context) string {
	var b strings.Builder
	b.WriteString(`# Flags

<!-- Generated from the flag definitions by ` + "`go generate ./cmd/askonce`" + `
(askonce help flags); do not edit. A test fails when this file is stale. -->

Every command's flags, as ` + "`askonce COMMAND --help`" + ` prints them. Each flag
can also be set with the environment variable beside it: a flag on the
command line wins over its variable, which wins over the default. A flag
marked repeatable may be given more than once and has no variable.

`)
	for _, cmd := range flagsDocCommands() {
		for _, s := range settingsOf(ctx, cmd...) {
			fmt.Fprintf(&b, "## askonce %s\n\n`askonce %s`\n\n", strings.Join(cmd, " "), strings.TrimSpace(s.Usage()))
			b.WriteString("| flag | variable | default | what it does |\n|---|---|---|---|\n")
			for _, f := range s.Flags() {
				env, def := "`"+f.Env+"`", "`"+f.Default+"`"
				switch {
				case f.Env == "":
					env, def = "", "repeatable"
				case f.Default == "":
					def = "`\"\"`" // as --help shows it
				}
				fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.Name, env, def, strings.ReplaceAll(f.Help, "|", `\|`))
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// settingsOf runs a command with --help, printing nothing, and returns the
// settings it made.
func settingsOf(ctx context.Context, cmd ...string) []*cli.Settings {
	var made []*cli.Settings
	cli.MadeSettings = func(s *cli.Settings) { made = append(made, s) }
	defer func() { cli.MadeSettings = nil }()
	run(ctx, append(cmd, "--help"), func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	return made
}
