package terminal

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/internal/jobview"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"
)

// errAborted is the user leaving the picker without an answer.
var errAborted = errors.New("no answer given")

// picker asks a pending job's question in the terminal with the picker of
// its type and returns the typed answer. Only valid answers can be
// picked: SELECT_ONE and TARGET_FILE list exactly their options by their
// titles (files, when a TARGET_FILE question offers none), and "Other…",
// a text input, when the question allows an answer of one's own),
// SELECT_MANY is a multi-select within its bounds, CONFIRM is yes/no,
// NUMBER and FREE_TEXT are inputs checked as the server checks them.
//
// The question and the line naming its type and job head the form, above
// the field: huh shows a select's filter in place of the field's title, and
// the question must stay on screen while the user filters.
func picker(ctx context.Context, j *client.JobView, files []string, in io.Reader, out io.Writer) (askonce.Answer, error) {
	if len(j.ClarificationFields) > 0 {
		return fieldsPicker(ctx, j, in, out, false)
	}
	full := questionOf(j)
	q := question{title: cli.CleanText(j.ClarificationQuestion), desc: jobview.Kind(j.ClarificationType) + " · job " + j.JobID}
	switch j.ClarificationType {
	case askonce.QuestionConfirm:
		yes := j.ClarificationDefault != "no"
		// The buttons start under the question, where the eye is, rather
		// than centred under its whole width.
		field := huh.NewConfirm().Affirmative("Yes").Negative("No").Value(&yes).
			WithButtonAlignment(lipgloss.Left)
		if err := q.ask(ctx, field, in, out); err != nil {
			return askonce.Answer{}, err
		}
		return askonce.AnswerOf(askonce.BoolValue(yes)), nil
	case askonce.QuestionSelectMany:
		def, _ := defaultValue(&full)
		picks := def.Options
		if err := q.ask(ctx, manySelect(&full, false).Title("Pick any").Value(&picks), in, out); err != nil {
			return askonce.Answer{}, err
		}
		return askonce.AnswerOf(askonce.OptionsValue(inOrder(full.Options, picks)...)), nil
	case askonce.QuestionSelectOne, askonce.QuestionTargetFile:
		opts := j.ClarificationOptions
		if len(opts) == 0 && j.ClarificationType == askonce.QuestionTargetFile {
			opts = files
		}
		if len(opts) == 0 {
			break
		}
		target := j.ClarificationType == askonce.QuestionTargetFile
		other := j.ClarificationType == askonce.QuestionSelectOne && j.ClarificationAllowOther
		if target && !slices.Contains(opts, ".") {
			// The project itself is a target too.
			opts = append(slices.Clip(opts), ".")
		}
		pick := 0
		if i := slices.Index(opts, j.ClarificationDefault); i >= 0 && j.ClarificationDefault != "" {
			pick = i
		}
		label := "Pick one"
		if j.ClarificationType == askonce.QuestionTargetFile {
			label = "Pick a file"
		}
		titles := make([]string, len(opts))
		for i, o := range opts {
			titles[i] = o
			if i < len(full.Options) {
				titles[i] = full.OptionTitle(i)
			}
		}
		// The label is the line huh turns into the filter while filtering.
		sel := huh.NewSelect[int]().Title(label).
			Options(choices(opts, titles, other, target)...).Value(&pick)
		if len(opts) > 12 {
			sel.Height(16) // scrolls; / filters
		}
		if err := q.ask(ctx, sel, in, out); err != nil {
			return askonce.Answer{}, err
		}
		switch pick {
		case otherChoice:
			q.desc += " · your own answer"
			full = askonce.Question{Type: askonce.QuestionFreeText}
		case pathChoice:
			q.desc += " · a path inside the project"
			p, err := pathInput(ctx, q, in, out)
			return askonce.AnswerOf(askonce.PathValue(p)), err
		default:
			if target {
				return askonce.AnswerOf(askonce.PathValue(opts[pick])), nil
			}
			return askonce.AnswerOf(askonce.OptionValue(opts[pick])), nil
		}
	}
	// FREE_TEXT, NUMBER, "Other…", or a question with nothing to list:
	// checked as the server checks it.
	var answer string
	field := huh.NewInput().
		CharLimit(askonce.MaxFreeText).Value(&answer).
		Validate(func(s string) error {
			if !askonce.HasVisible(s) {
				return errors.New("type an answer")
			}
			if full.Type == askonce.QuestionNumber || full.Type == askonce.QuestionFreeText {
				_, err := checkText(&full, s)
				return err
			}
			return nil
		})
	if full.Type == askonce.QuestionNumber {
		field.Placeholder(full.Accepts())
	}
	if err := q.ask(ctx, field, in, out); err != nil {
		return askonce.Answer{}, err
	}
	if v, err := checkText(&full, answer); err == nil && full.Type == askonce.QuestionNumber {
		return askonce.AnswerOf(v), nil
	}
	return askonce.TextAnswer(answer), nil
}

// pathInput asks for a path inside the project, checked as the server
// checks a TARGET_FILE answer.
func pathInput(ctx context.Context, q question, in io.Reader, out io.Writer) (string, error) {
	var p string
	field := huh.NewInput().Placeholder("src/main.go").
		CharLimit(askonce.MaxPath).Value(&p).
		Validate(func(s string) error {
			_, err := askonce.ValidatePath(s)
			return err
		})
	if err := q.ask(ctx, field, in, out); err != nil {
		return "", err
	}
	return p, nil
}

// The values of a select picker's entries that are not options (the
// options are picked by their index).
const (
	otherChoice = -1 // "Other…": a text input for an answer of one's own
	pathChoice  = -2 // "Another path…": a text input for a path (TARGET_FILE)
)

// Labels of those entries, and of the project root among the files.
const (
	otherLabel = "Other…"
	pathLabel  = "Another path…"
	rootLabel  = ". (the project root)"
)

// choices shows each option by its title, cleaned, while the value
// picked is its index, so that the server gets exactly the option it
// offered, followed by "Other…" when other answers are allowed, and by
// "Another path…" for a file (target).
func choices(opts, titles []string, other, target bool) []huh.Option[int] {
	out := make([]huh.Option[int], 0, len(opts)+1)
	for i, o := range opts {
		label := cli.CleanText(titles[i])
		if target && o == "." {
			label = rootLabel
		}
		out = append(out, huh.NewOption(label, i))
	}
	if other {
		out = append(out, huh.NewOption(otherLabel, otherChoice))
	}
	if target {
		out = append(out, huh.NewOption(pathLabel, pathChoice))
	}
	return out
}

// question is the head of a picker: the question (cleaned) and a line
// naming its type and job.
type question struct{ title, desc string }

// ask runs a form of one field under the question.
func (q question) ask(ctx context.Context, field huh.Field, in io.Reader, out io.Writer) error {
	group := huh.NewGroup(escLeaves{field}).Title(q.title).Description(q.desc)
	form := huh.NewForm(group).WithInput(in).WithOutput(cli.Raw(out)).WithShowHelp(true)
	err := form.RunWithContext(ctx)
	if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, context.Canceled) {
		return errAborted
	}
	return err
}

// escLeaves makes Esc leave the picker as ctrl+c does, unless the field
// itself uses Esc at that moment (a select's filter: Esc sets or clears
// it). huh binds only ctrl+c to leaving a form, and a lone Esc did
// nothing, so that Esc then Enter submitted the highlighted answer.
type escLeaves struct{ huh.Field }

func (f escLeaves) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyEsc && !f.usesEsc() {
		// The form quits on its Quit key (ctrl+c): send it that.
		return f, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyCtrlC} }
	}
	m, cmd := f.Field.Update(msg)
	if field, ok := m.(huh.Field); ok {
		f.Field = field
	}
	return f, cmd
}

// usesEsc reports whether an enabled key binding of the field is Esc.
func (f escLeaves) usesEsc() bool {
	for _, b := range f.Field.KeyBinds() {
		if b.Enabled() && slices.Contains(b.Keys(), "esc") {
			return true
		}
	}
	return false
}

// projectFiles lists up to limit files of the project at root, relative
// and slash-separated, as a job's files: in a git repository the tracked
// and untracked files .gitignore does not exclude, elsewhere a bounded walk
// (workingTreeFiles). Paths a job could not take, and those in omit, are
// left out.
func projectFiles(root string, limit int, omit ...string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var files []string
	out, err := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		files = strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	} else {
		files = workingTreeFiles(root, limit)
	}
	ok := files[:0]
	for _, f := range files {
		if _, err := askonce.ValidatePath(f); f != "" && err == nil && !slices.Contains(ok, f) && !slices.Contains(omit, f) {
			ok = append(ok, f)
		}
		if len(ok) >= limit {
			break
		}
	}
	return ok
}

// workingTreeFiles lists up to limit regular files under root, relative
// and slash-separated, skipping hidden and dependency directories.
func workingTreeFiles(root string, limit int) []string {
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(name, ".") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err == nil {
			files = append(files, filepath.ToSlash(rel))
		}
		if len(files) >= limit {
			return fs.SkipAll
		}
		return nil
	})
	return files
}
