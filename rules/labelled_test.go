package rules

import (
	"bufio"
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// labelled is one request of testdata/requests.txt.
type labelled struct {
	line     int
	clear    bool
	detector string // the check that should ask, for an ambiguous request
	goal     string
	files    []string
}

func readLabelled(t *testing.T) []labelled {
	t.Helper()
	f, err := os.Open("testdata/requests.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		head := strings.Fields(parts[0])
		if len(parts) < 2 || len(head) == 0 || len(head) > 2 {
			t.Fatalf("requests.txt:%d: want <label> [detector] | request [| files]", n)
		}
		l := labelled{line: n, clear: head[0] == "clear", goal: parts[1]}
		switch {
		case head[0] != "clear" && head[0] != "ambiguous":
			t.Fatalf("requests.txt:%d: label %q", n, head[0])
		case !l.clear && (len(head) != 2 || !slices.Contains(checkNames, head[1])):
			t.Fatalf("requests.txt:%d: an ambiguous request names one of the checks %v", n, checkNames)
		case !l.clear:
			l.detector = head[1]
		}
		if len(parts) > 2 {
			for _, f := range strings.Split(parts[2], ",") {
				l.files = append(l.files, strings.TrimSpace(f))
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLabelledRequestsPrecisionAndCatchRate runs the general profile on
// the project's own labelled requests: it may ask on at most 3% of the
// clear ones, and each detector must catch at least 90% of the ambiguous
// requests labelled with it (the question must come from that detector).
func TestLabelledRequestsPrecisionAndCatchRate(t *testing.T) {
	t.Parallel()
	set := readLabelled(t)
	if len(set) < 300 {
		t.Fatalf("the labelled set has %d requests; want at least 300", len(set))
	}
	profiles, err := embeddedProfiles()
	if err != nil {
		t.Fatal(err)
	}
	p := profiles[DefaultProfile]
	clear, askedOnClear := 0, 0
	cases, caught := map[string]int{}, map[string]int{}
	for _, l := range set {
		rd := read(newInput(p, l.goal, &askonce.Request{Files: l.files}), false)
		if l.clear {
			clear++
			if rd.question != nil {
				askedOnClear++
				t.Logf("requests.txt:%d: asked on a clear request (%s): %q -> %q %q", l.line, rd.asker, l.goal, rd.question.Text, rd.question.Options)
			}
			continue
		}
		cases[l.detector]++
		if rd.asker == l.detector {
			caught[l.detector]++
		} else if rd.question != nil {
			t.Logf("requests.txt:%d: %s request asked by %s: %q -> %q", l.line, l.detector, rd.asker, l.goal, rd.question.Text)
		} else {
			t.Logf("requests.txt:%d: missed %s: %q", l.line, l.detector, l.goal)
		}
	}
	rate := float64(askedOnClear) / float64(clear)
	t.Logf("asks on clear: %d of %d (%.1f%%)", askedOnClear, clear, 100*rate)
	if rate > 0.03 {
		t.Errorf("asks on %.1f%% of clear requests; the limit is 3%%", 100*rate)
	}
	for _, d := range checkNames {
		if cases[d] == 0 {
			t.Errorf("no labelled requests for the %s detector", d)
			continue
		}
		r := float64(caught[d]) / float64(cases[d])
		t.Logf("%-13s catches %d of %d (%.0f%%)", d, caught[d], cases[d], 100*r)
		if r < 0.9 {
			t.Errorf("%s catches %.0f%% of its cases; want at least 90%%", d, 100*r)
		}
	}
}

// The outcome the interpreter hands over with its output is the output
// parsed (askonce.Response.Outcome), for every labelled request, asked
// and answered.
func TestRule9_HandedOverOutcomeIsTheOutputParsed(t *testing.T) {
	t.Parallel()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range readLabelled(t) {
		for _, prompt := range []string{l.goal, askonce.ResolvedPrompt(l.goal, "yes"), askonce.ResolvedPrompt(l.goal, "the first one")} {
			res, err := in.Interpret(context.Background(), &askonce.Request{Goal: l.goal, Prompt: prompt, Files: l.files, Attempt: 1})
			if err != nil {
				t.Fatalf("requests.txt:%d: %v", l.line, err)
			}
			parsed, err := askonce.ParseOutcome(res.Raw)
			if err != nil {
				t.Fatalf("requests.txt:%d: %v", l.line, err)
			}
			handed := res.Outcome
			if handed == nil || handed.Check() != nil || !reflect.DeepEqual(handed, parsed) {
				t.Errorf("requests.txt:%d %q: handed over\n%+v\nparsed\n%+v", l.line, prompt, handed, parsed)
			}
		}
	}
}
