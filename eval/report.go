package eval

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
)

// writeEvalReportFile writes the Markdown report of a run to path.
func writeEvalReportFile(path, interp string, paths []string, s evalSummary, results []*evalResult, total int) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	w := bufio.NewWriter(f)
	writeEvalReport(w, interp, paths, s, results, total)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("--report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}

// writeEvalReport is the report for people: the figures, then every
// question beside its goal, those asked on clear items first, then the ask
// items left unasked and the errors. Every text from a labelled file or an
// interpreter is escaped (md), so that it reads as written and never as
// Markdown or HTML.
func writeEvalReport(w io.Writer, interp string, paths []string, s evalSummary, results []*evalResult, total int) {
	a := s.All
	fmt.Fprintf(w, "# askonce eval: %s interpreter\n\n", md(interp))
	var files []string
	for _, p := range paths {
		files = append(files, md(p))
	}
	fmt.Fprintf(w, "Files: %s. Measured %d of %d items.\n\n", strings.Join(files, ", "), a.Items, total)
	fmt.Fprintln(w, "| figure | count | rate |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| asks on clear items | %d of %d | %s |\n", a.AsksOnClear, a.Clear, rate(a.asksOnClearRate()))
	fmt.Fprintf(w, "| precision | %d of %d questions on ask items | %s |\n", a.AsksOnAsk, a.asked(), rate(a.precision()))
	fmt.Fprintf(w, "| recall | %d of %d ask items asked | %s |\n", a.AsksOnAsk, a.Ask, rate(a.recall()))
	fmt.Fprintf(w, "| F1 | | %s |\n", rate(a.f1()))
	fmt.Fprintf(w, "| right question | %d of %d questions | %s |\n", a.Right, a.asked(), rate(a.rightQuestionRate()))
	fmt.Fprintf(w, "| interpreter errors | %d | |\n", a.Errors)
	fmt.Fprintf(w, "| usage | %d prompt + %d completion tokens | $%.4f |\n\n", a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD)
	writeReportTable(w, "question reason", s.ByReason)
	writeReportTable(w, "language", s.ByLanguage)

	var onClear, onAsk, missed, failed []*evalResult
	for _, r := range results {
		switch {
		case !r.Measured:
		case r.Error != "":
			failed = append(failed, r)
		case r.Asked && r.Item.Label == labelClear:
			onClear = append(onClear, r)
		case r.Asked:
			onAsk = append(onAsk, r)
		case r.Item.Label == labelAsk:
			missed = append(missed, r)
		}
	}
	fmt.Fprintf(w, "## Questions asked on clear items (%d)\n\n", len(onClear))
	fmt.Fprintln(w, "Each of these is a question a thoughtful person would not have asked, or a label to review.")
	for _, r := range onClear {
		writeReportItem(w, r)
		writeAsked(w, r.Question)
	}
	fmt.Fprintf(w, "\n## Questions asked on ask items (%d)\n\n", len(onAsk))
	for _, r := range onAsk {
		writeReportItem(w, r)
		writeExpected(w, r.Item.Expect)
		writeAsked(w, r.Question)
		verdict := "the right question"
		if !r.Right {
			verdict = "not the expected question"
		}
		fmt.Fprintf(w, "- Verdict: %s\n", verdict)
	}
	fmt.Fprintf(w, "\n## Ask items planned without a question (%d)\n\n", len(missed))
	for _, r := range missed {
		writeReportItem(w, r)
		writeExpected(w, r.Item.Expect)
	}
	fmt.Fprintf(w, "\n## Interpreter errors (%d)\n\n", len(failed))
	for _, r := range failed {
		writeReportItem(w, r)
		fmt.Fprintf(w, "- Error: %s\n", md(r.Error))
	}
}

func writeReportTable(w io.Writer, by string, m map[string]*evalScore) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "### By %s\n\n", by)
	fmt.Fprintln(w, "| | items | asks on clear | precision | recall | F1 | right question | errors |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		fmt.Fprintf(w, "| %s | %d | %d of %d | %s | %s | %s | %s | %d |\n", md(k), v.Items, v.AsksOnClear, v.Clear,
			rate(v.precision()), rate(v.recall()), rate(v.f1()), rate(v.rightQuestionRate()), v.Errors)
	}
	fmt.Fprintln(w)
}

func writeReportItem(w io.Writer, r *evalResult) {
	it := r.Item
	fmt.Fprintf(w, "\n### %s (%s, %s)\n\n", md(it.ID), it.Label, r.Language)
	fmt.Fprintf(w, "- Goal: %s\n", md(it.Goal))
	if len(it.Candidates) > 0 {
		fmt.Fprintf(w, "- Candidates: %s\n", mdList(it.Candidates))
	}
	if len(it.Files) > 0 {
		fmt.Fprintf(w, "- Files: %s\n", mdList(it.Files))
	}
	if len(it.SpecSchema) > 0 {
		fmt.Fprintf(w, "- specSchema: %s\n", md(string(it.SpecSchema)))
	}
	if it.Note != "" {
		fmt.Fprintf(w, "- Note: %s\n", md(it.Note))
	}
}

func writeExpected(w io.Writer, e *evalExpect) {
	if e == nil {
		fmt.Fprintln(w, "- Expected: any question")
		return
	}
	fmt.Fprintf(w, "- Expected: %s, options %s\n", md(cmp(string(e.Type), "any type")), mdList(e.Options))
}

func writeAsked(w io.Writer, q *askonce.Question) {
	fmt.Fprintf(w, "- Asked: %s (%s): %s\n", md(string(q.Type)), md(cmp(q.Reason, "no reason")), md(q.Text))
	fmt.Fprintf(w, "- Options: %s\n", mdList(q.Options))
}

func mdList(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "“" + md(x) + "”"
	}
	return strings.Join(out, " · ")
}

// mdEscaper makes text literal in Markdown and in the HTML a Markdown
// viewer renders: its punctuation backslash-escaped, & as an entity (so
// that "&lt;" stays as written), and line breaks as spaces, so one text
// stays on its line of the report.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`,
	"|", `\|`, "#", `\#`, "!", `\!`, "~", `\~`, "&", "&amp;", "\r\n", " ", "\n", " ", "\r", " ",
)

// md is one line of untrusted text for the report: Markdown escaped and
// control characters made visible.
func md(s string) string {
	return mdEscaper.Replace(cli.CleanText(s))
}
