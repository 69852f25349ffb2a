package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/terminal"
)

const completionUsage = `Usage: askonce completion bash|zsh|fish

Prints a script that completes askonce's commands, the commands of
askonce jobs, and each command's flags. Load it with:

  bash:  source <(askonce completion bash)        (or save it under ~/.local/share/bash-completion/completions/askonce)
  zsh:   source <(askonce completion zsh)         (after compinit)
  fish:  askonce completion fish | source         (or save it as ~/.config/fish/completions/askonce.fish)
`

// completion prints the completion script of a shell.
func completion(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, completionUsage)
		return nil
	}
	if len(args) != 1 {
		return cli.UsageError{Msg: "usage: askonce completion bash|zsh|fish"}
	}
	t := newCompletionTable(ctx)
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, t.bash())
	case "zsh":
		fmt.Fprint(stdout, t.zsh())
	case "fish":
		fmt.Fprint(stdout, t.fish())
	default:
		hint := cli.DidYouMean(args[0], completionShells)
		if hint != "" {
			hint = ": " + hint
		}
		return cli.UsageError{Msg: fmt.Sprintf("completion: unknown shell %q%s (bash, zsh or fish)", args[0], hint)}
	}
	return nil
}

var completionShells = []string{"bash", "zsh", "fish"}

// completionTable is what the scripts complete: the commands, the words
// each takes first, and the flags of each command (and of each jobs
// command), as the commands themselves define them.
type completionTable struct {
	commands []string
	words    map[string][]string // command -> words it takes first (jobs' commands, shells)
	flags    map[string][]string // "serve", "jobs list" -> --flags
}

func newCompletionTable(ctx context.Context) completionTable {
	t := completionTable{
		commands: commands,
		words: map[string][]string{
			"jobs":       terminal.JobsCommands,
			"completion": completionShells,
			"help":       commands,
		},
		flags: map[string][]string{},
	}
	for _, c := range commands {
		switch c {
		case "help", "completion", "version", "hash-key":
			continue // no flags; help --help would be help again
		case "jobs":
			for _, sub := range terminal.JobsCommands {
				t.flags["jobs "+sub] = flagsOf(ctx, "jobs", sub)
			}
			continue
		}
		if f := flagsOf(ctx, c); len(f) > 0 {
			t.flags[c] = f
		}
	}
	return t
}

// flagsOf runs a command with --help, printing nothing, and returns the
// flags it defined.
func flagsOf(ctx context.Context, cmd ...string) []string {
	var names []string
	for _, s := range settingsOf(ctx, cmd...) {
		names = append(names, s.FlagNames()...)
	}
	sort.Strings(names)
	return names
}

// flagKeys are the keys of t.flags, sorted, for scripts that are the same
// from one run to the next.
func (t completionTable) flagKeys() []string {
	var keys []string
	for k := range t.flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (t completionTable) bash() string {
	var b strings.Builder
	b.WriteString(`# askonce completion for bash: source <(askonce completion bash)
_askonce() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} sub=${COMP_WORDS[2]} words=
    if (( COMP_CWORD == 1 )); then
        words="` + strings.Join(t.commands, " ") + `"
    elif (( COMP_CWORD == 2 )) && [[ $cur != -* ]]; then
        case $cmd in
`)
	for _, c := range t.commands {
		if w := t.words[c]; len(w) > 0 {
			fmt.Fprintf(&b, "            %s) words=%q ;;\n", c, strings.Join(w, " "))
		}
	}
	b.WriteString(`        esac
    elif [[ $cur == -* ]]; then
        local key=$cmd
        [[ $cmd == jobs ]] && key="jobs $sub"
        case $key in
`)
	for _, k := range t.flagKeys() {
		fmt.Fprintf(&b, "            %q) words=%q ;;\n", k, strings.Join(t.flags[k], " "))
	}
	b.WriteString(`        esac
    fi
    if [[ -n $words ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=()
    fi
}
complete -o default -F _askonce askonce
`)
	return b.String()
}

func (t completionTable) zsh() string {
	var b strings.Builder
	b.WriteString(`#compdef askonce
# askonce completion for zsh: source <(askonce completion zsh) after compinit
_askonce() {
    local -a w
    if (( CURRENT == 2 )); then
        w=(` + strings.Join(t.commands, " ") + `)
        compadd -a w
        return
    fi
    if (( CURRENT == 3 )) && [[ $PREFIX != -* ]]; then
        case $words[2] in
`)
	for _, c := range t.commands {
		if w := t.words[c]; len(w) > 0 {
			fmt.Fprintf(&b, "            %s) w=(%s) ;;\n", c, strings.Join(w, " "))
		}
	}
	b.WriteString(`        esac
    elif [[ $PREFIX == -* ]]; then
        local key=$words[2]
        [[ $key == jobs ]] && key="jobs $words[3]"
        case $key in
`)
	for _, k := range t.flagKeys() {
		fmt.Fprintf(&b, "            %q) w=(%s) ;;\n", k, strings.Join(t.flags[k], " "))
	}
	b.WriteString(`        esac
    fi
    if (( $#w )); then
        compadd -a w
    else
        _files
    fi
}
compdef _askonce askonce
`)
	return b.String()
}

func (t completionTable) fish() string {
	var b strings.Builder
	b.WriteString("# askonce completion for fish: askonce completion fish | source\n")
	fmt.Fprintf(&b, "complete -c askonce -f -n __fish_use_subcommand -a '%s'\n", strings.Join(t.commands, " "))
	for _, c := range t.commands {
		if w := t.words[c]; len(w) > 0 {
			fmt.Fprintf(&b, "complete -c askonce -f -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -a '%s'\n",
				c, strings.Join(w, " "), strings.Join(w, " "))
		}
	}
	for _, k := range t.flagKeys() {
		cond := "__fish_seen_subcommand_from " + k
		if sub, ok := strings.CutPrefix(k, "jobs "); ok {
			cond = "__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from " + sub
		}
		for _, f := range t.flags[k] {
			fmt.Fprintf(&b, "complete -c askonce -n '%s' -l %s\n", cond, strings.TrimPrefix(f, "--"))
		}
	}
	return b.String()
}
