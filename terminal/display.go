package terminal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/internal/jobview"
	"github.com/charmbracelet/lipgloss/tree"
	"github.com/charmbracelet/x/term"
)

// autoResolved is the line that says the repeat guard or the resolver
// answered the job's question, or "".
func autoResolved(j *client.JobView) string {
	if j.ClarificationSource != askonce.SourceHistory && j.ClarificationSource != askonce.SourceResolver {
		return ""
	}
	from := "from " + string(j.ClarificationSource)
	if m := j.ClarificationMemory; m != nil && m.Scope != askonce.MemorySession {
		from += ": " + m.Describe(time.Now())
	}
	return fmt.Sprintf("[auto-resolved] %s -> %s (%s)", j.ClarificationQuestion, answerText(j), from)
}

// printQuestion shows a pending question for line-oriented input: its
// text and its numbered options.
func printQuestion(w io.Writer, j *client.JobView, files []string) {
	fmt.Fprintf(w, "? %s  [%s]\n", j.ClarificationQuestion, jobview.Kind(j.ClarificationType))
	q := questionOf(j)
	for i, o := range answerOptions(j, files) {
		if i < len(q.Options) {
			o = q.OptionTitle(i)
		}
		fmt.Fprintf(w, "  %d) %s\n", i+1, o)
	}
	if j.ClarificationAllowOther {
		fmt.Fprintln(w, "  or an answer of your own")
	}
}

// printAnswerPrompt says how to answer on the next line.
func printAnswerPrompt(w io.Writer, j *client.JobView, files []string) {
	opts := answerOptions(j, files)
	switch {
	case len(j.ClarificationFields) > 0:
		fmt.Fprintf(w, "Answer on one line, the fields as name: value separated by \";\", such as %s: ...:\n", j.ClarificationFields[0].Name)
	case j.ClarificationType == askonce.QuestionNumber:
		q := questionOf(j)
		fmt.Fprintf(w, "Answer with %s:\n", q.Accepts())
	case j.ClarificationType == askonce.QuestionSelectMany:
		fmt.Fprintf(w, "Answer with the numbers of your picks (1-%d), separated by commas:\n", len(opts))
	case j.ClarificationType == askonce.QuestionFreeText:
		fmt.Fprintf(w, "Answer (one line, at most %d bytes):\n", askonce.MaxFreeText)
	case len(opts) > 0 && j.ClarificationAllowOther:
		fmt.Fprintf(w, "Answer with a number (1-%d), or type your own answer (one line, at most %d bytes):\n", len(opts), askonce.MaxFreeText)
	case len(opts) > 0:
		fmt.Fprintf(w, "Answer with a number (1-%d) or the text:\n", len(opts))
	default:
		fmt.Fprintln(w, "Answer:")
	}
}

// answerOptions are the choices offered for a question: its options, yes
// and no for CONFIRM, and for a TARGET_FILE with no offered files the
// given working-tree files.
func answerOptions(j *client.JobView, files []string) []string {
	switch {
	case len(j.ClarificationOptions) > 0:
		return j.ClarificationOptions
	case j.ClarificationType == askonce.QuestionConfirm:
		return []string{"yes", "no"}
	case j.ClarificationType == askonce.QuestionTargetFile:
		return files
	}
	return nil
}

// readLine reads one line (without its end); ok is false at end of input
// with nothing read.
func readLine(r *bufio.Reader) (string, bool, error) {
	s, err := r.ReadString('\n')
	if err == io.EOF {
		return strings.TrimRight(s, "\r"), s != "", nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimRight(s, "\r\n"), true, nil
}

// printResult prints a settled job: the auto-resolved line, its title,
// id and status, and its plan as a tree (or its error), and says when
// nobody answered in time and a default answered or the job expired.
func printResult(w io.Writer, j *client.JobView) {
	if line := autoResolved(j); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s\n", j.Title)
	fmt.Fprintf(w, "  job %s · %s · session %s\n", j.JobID, j.Status, j.SessionID)
	if j.ClarificationStatus == askonce.ClarificationAnswered && autoResolved(j) == "" {
		fmt.Fprintf(w, "  answer: %s (from %s)\n", oneLine(answerText(j), 100), j.ClarificationSource)
	}
	if j.Plan != nil {
		p := *j.Plan
		if p.Title == j.Title {
			p.Title = ""
		}
		printPlan(w, &p)
	}
	if j.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", j.Error)
	}
	if j.ExpiryNote != "" {
		fmt.Fprintf(w, "  %s\n", oneLine(j.ExpiryNote, 300))
	}
	if j.Status == askonce.StatusPending {
		fmt.Fprintf(w, "  pending: %s [%s]\n", j.ClarificationQuestion, jobview.Kind(j.ClarificationType))
		if j.AnswerURL != "" {
			fmt.Fprintf(w, "  answer at: %s\n", j.AnswerURL)
		}
	}
}

// printPlan draws the tasks as a tree (lipgloss): each task under its last
// dependency, with its other dependencies named. The labels are cleaned
// before the tree measures them, so hostile text cannot bend its lines.
func printPlan(w io.Writer, p *askonce.Plan) {
	if p.Title != "" {
		fmt.Fprintf(w, "  plan: %s\n", p.Title)
	}
	known := map[string]bool{}
	for _, t := range p.Tasks {
		known[t.ID] = true
	}
	children := map[string][]askonce.Task{}
	var roots []askonce.Task
	for _, t := range p.Tasks {
		parent := ""
		for _, d := range t.DependsOn {
			if known[d] && d != t.ID {
				parent = d
			}
		}
		if parent == "" {
			roots = append(roots, t)
		} else {
			children[parent] = append(children[parent], t)
		}
	}
	seen := map[string]bool{}
	var add func(parent *tree.Tree, t askonce.Task)
	add = func(parent *tree.Tree, t askonce.Task) {
		if seen[t.ID] {
			return
		}
		seen[t.ID] = true
		label := t.ID + "  " + t.Title
		if len(t.DependsOn) > 0 {
			label += "  (after " + strings.Join(t.DependsOn, ", ") + ")"
		}
		node := tree.Root(cli.CleanText(label))
		for _, c := range children[t.ID] {
			add(node, c)
		}
		parent.Child(node)
	}
	plan := tree.New()
	for _, t := range roots {
		add(plan, t)
	}
	// A cycle's tasks have no root; show them rather than drop them.
	for _, t := range p.Tasks {
		add(plan, t)
	}
	if len(seen) > 0 {
		fmt.Fprintln(w, plan)
	}
	for _, a := range p.Assumptions {
		fmt.Fprintf(w, "  assumption: %s\n", a)
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shownCandidates is how many of a job's candidates jobs show lists.
const shownCandidates = 8

// fewOf lists the first n names, each on one line and shortened, and how
// many there are when that is more: a job may carry a thousand.
func fewOf(names []string, n int) string {
	shown := make([]string, 0, min(n, len(names)))
	for _, name := range names[:min(n, len(names))] {
		shown = append(shown, oneLine(name, 40))
	}
	line := strings.Join(shown, ", ")
	if len(names) > n {
		line += fmt.Sprintf(", … (%d in all)", len(names))
	}
	return line
}

// tableWidth is a default terminal's width.
const tableWidth = 80

// outputWidth is the width of the terminal stdout is, or 0 when stdout is
// not a terminal: a program reading the table (grep, a pipe, a file) gets
// every title and session whole.
func outputWidth() int {
	if w, _, err := term.GetSize(os.Stdout.Fd()); err == nil && w > 0 {
		return w
	}
	return 0
}

// printJobTable lists jobs, newest first, one per row, in at most width
// columns (0: no limit, every cell whole). The id, status and question
// state are always whole (they are what the other commands take and what
// a script greps); the title and session are shortened, and then the
// session and title left out, until the rows fit. jobs show has the rest,
// with the times.
func printJobTable(w io.Writer, jobs []client.JobView, width int) {
	const (
		colSession = 3
		colTitle   = 4
	)
	rows := [][]string{{"ID", "STATUS", "QUESTION", "SESSION", "TITLE"}}
	for _, j := range jobs {
		cl := string(j.ClarificationStatus)
		if j.ClarificationSource != "" {
			cl += " (" + string(j.ClarificationSource) + ")"
		}
		session, title := oneLine(j.SessionID, 200), oneLine(j.Title, max(200, width))
		if width <= 0 {
			session, title = oneLine(j.SessionID, len(j.SessionID)), oneLine(j.Title, len(j.Title))
		}
		rows = append(rows, []string{j.JobID, string(j.Status), cl, session, title})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	total := func() int {
		n := 0
		for _, wd := range widths {
			if wd > 0 {
				n += wd + 2
			}
		}
		return n - 2
	}
	if width <= 0 {
		width = total()
	}
	// Each step gives up a little more, until the table fits.
	shrink := func(col, floor int) {
		if over := total() - width; over > 0 && widths[col] > floor {
			widths[col] = max(floor, widths[col]-over)
		}
	}
	shrink(colTitle, 20)
	shrink(colSession, 8)
	shrink(colTitle, 12)
	if total() > width {
		widths[colSession] = 0
	}
	shrink(colTitle, len("TITLE"))
	if total() > width {
		widths[colTitle] = 0
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if widths[i] == 0 {
				continue
			}
			if line.Len() > 0 {
				line.WriteString("  ")
			}
			c = oneLine(c, widths[i])
			line.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))))
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}

// printDetail shows one job in full.
func printDetail(w io.Writer, d *client.JobDetail) {
	j := &d.JobView
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("Job", j.JobID)
	row("Title", j.Title)
	row("Status", string(j.Status))
	row("Goal", oneLine(j.Goal, 200))
	row("Session", j.SessionID)
	row("Mode", string(j.Mode))
	row("Profile", j.Profile)
	row("Files", strings.Join(j.Files, ", "))
	row("Candidates", fewOf(j.Candidates, shownCandidates))
	row("Notify", recipientsLine(j.Notify))
	row("Clarification", string(j.ClarificationStatus))
	if j.ClarificationQuestion != "" {
		row("Question", fmt.Sprintf("%s [%s]", j.ClarificationQuestion, jobview.Kind(j.ClarificationType)))
		opts := strings.Join(j.ClarificationOptions, ", ")
		if j.ClarificationAllowOther {
			opts += ", or an answer of your own"
		}
		row("Options", opts)
		row("Default", j.ClarificationDefault)
		row("Answer link", j.AnswerURL)
	}
	if j.ClarificationAnswer != "" {
		row("Answer", fmt.Sprintf("%s (from %s)", oneLine(answerText(j), 200), j.ClarificationSource))
		row("Answered via", strings.TrimSpace(j.AnsweredVia+" "+oneLine(j.AnsweredBy, 100)))
	}
	row("Error", j.Error)
	row("Expiry", oneLine(j.ExpiryNote, 300))
	row("Attempts", strconv.Itoa(len(d.Attempts)))
	usage := fmt.Sprintf("%d prompt + %d completion tokens", j.Usage.PromptTokens, j.Usage.CompletionTokens)
	if j.Usage == (askonce.Usage{}) { // the rules interpreter calls no model
		usage = "no model tokens"
	}
	if j.Usage.CostUSD > 0 { // an offline interpreter costs nothing: no "$0.0000"
		usage += fmt.Sprintf(", $%.4f", j.Usage.CostUSD)
	}
	row("Usage", usage)
	row("Dispatch", string(j.DispatchStatus))
	row("Created", j.CreatedAt.Local().Format(time.DateTime))
	row("Updated", j.UpdatedAt.Local().Format(time.DateTime))
	tw.Flush()
	if j.Plan != nil {
		printPlan(w, j.Plan)
	}
	if line := autoResolved(j); line != "" {
		fmt.Fprintln(w, line)
	}
}

// printEvents lists events, one per row.
func printEvents(w io.Writer, evs []askonce.Event) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAT\tTYPE\tDATA")
	for _, ev := range evs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", ev.ID, ev.At.Local().Format("15:04:05.000"), ev.Type, oneLine(string(ev.Data), 80))
	}
	tw.Flush()
}

// recipientsLine shows r in one line for jobs show.
func recipientsLine(r *askonce.Recipients) string {
	if r.Empty() {
		return ""
	}
	var parts []string
	if r.Slack != nil {
		parts = append(parts, "slack "+r.Slack.Conversation())
	}
	if len(r.Email) > 0 {
		parts = append(parts, "email "+strings.Join(r.Email, ", "))
	}
	switch n := len(r.Steps); n {
	case 0:
	case 1:
		parts = append(parts, "1 reach step")
	default:
		parts = append(parts, fmt.Sprintf("%d reach steps", n))
	}
	return strings.Join(parts, "; ")
}

// answerText is the job's answer as a person reads it: the API's
// clarificationAnswer ("name: value; ..." for a question with fields).
func answerText(j *client.JobView) string { return j.ClarificationAnswer }
