package rules

import "testing"

func TestTargetFileAsksOnlyWhenSeveralCandidatesFit(t *testing.T) {
	t.Parallel()
	two := []string{"a.md", "docs/b.md"}
	runDetector(t, func(in *input) finding { r := detectTargetFile(in); return &r }, []detectorCase{
		{goal: "summarise the file", files: two, options: asks("a.md", "docs/b.md"), text: "“the file”"},
		{goal: "このファイルを要約して", files: two, options: asks("a.md", "docs/b.md"), text: "「このファイル」"},
		{goal: "それからこのファイルを直して", files: two, options: asks("a.md", "docs/b.md")},
		{goal: "summarise the file", answer: "banana", files: two, options: asks("a.md", "docs/b.md")},
		// A named file, the only candidate, an answer, no candidates.
		{goal: "open b.md and summarise the file", files: two},
		{goal: "summarise this file", files: []string{"a.md"}},
		{goal: "summarise the file", answer: "docs/b.md", files: two},
		{goal: "summarise the file", answer: "root", files: two},
		{goal: "summarise the file"},
		{goal: "summarise the readme", files: two},
	})
}
