package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// targetFile is the target-file detector's result: the file the goal's
// "the file" means, if it has one.
type targetFile struct {
	target      string
	q           *askonce.Question
	assumptions []string
}

func (t *targetFile) open() *askonce.Question { return t.q }
func (t *targetFile) assumed() []string       { return t.assumptions }

// detectTargetFile settles "the file" ("this file", このファイル): a
// candidate file the goal names, the only candidate, or the answer's file.
// With two or more candidates and none named it asks TARGET_FILE (reason
// target_file_ambiguous, never allowOther): the options are the candidate
// files, and the answer may be one of them, another relative path inside
// the project, or a project-root word (stored as "."). The rule takes the
// first candidate. Without candidate files it never asks.
func detectTargetFile(in *input) targetFile {
	var res targetFile
	at := -1
	for i := range in.gt {
		if !in.gt[i].neg && in.c.phraseAt(in.gt, i, fTarget) > 0 {
			at = i
			break
		}
	}
	if at < 0 || len(in.files) == 0 {
		return res
	}
	phrase := in.span(at, at+in.c.phraseAt(in.gt, at, fTarget))
	if f := namedFile(in.files, in.gt); f != "" {
		res.target = f
		return res
	}
	if len(in.files) == 1 {
		res.target = in.files[0]
		res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to be %s, the only candidate file.", in.quote(phrase), in.files[0]))
		return res
	}
	if f := answerFile(in); f != "" {
		res.target = f
		return res
	}
	text := fmt.Sprintf("The goal refers to %s. Which file is it?", in.quote(phrase))
	if in.japanese {
		text = fmt.Sprintf("%sはどのファイルですか？", in.quote(phrase))
	}
	res.q = &askonce.Question{
		Type:    askonce.QuestionTargetFile,
		Text:    text,
		Options: in.files,
		Reason:  "target_file_ambiguous",
		Default: in.files[0],
	}
	res.target = in.files[0]
	res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to be %s, the first candidate file.", in.quote(phrase), in.files[0]))
	return res
}

// namedFile is the candidate file that toks name by its path, or by a base
// name no other candidate shares.
func namedFile(files []string, toks []token) string {
	for i := range toks {
		t := toks[i].Text
		base := ""
		for _, f := range files {
			lf := strings.ToLower(f)
			if lf == t {
				return f
			}
			if strings.ToLower(path.Base(f)) == t {
				if base != "" {
					base = "\x00" // shared base name: ambiguous
				} else {
					base = f
				}
			}
		}
		if base != "" && base != "\x00" {
			return base
		}
	}
	return ""
}

// answerFile reads a TARGET_FILE answer: an offered file, a project-root
// word ("."), or a relative path inside the project.
func answerFile(in *input) string {
	a := strings.TrimSpace(in.answer)
	if a == "" {
		return ""
	}
	for _, f := range in.files {
		if f == a {
			return f
		}
	}
	if lex.IsRootWord(a) {
		return "."
	}
	if f := namedFile(in.files, in.at); f != "" {
		return f
	}
	if strings.ContainsAny(a, " \t\n\\") || !strings.ContainsAny(a, "./") || path.IsAbs(a) {
		return ""
	}
	if c := path.Clean(a); c != ".." && !strings.HasPrefix(c, "../") {
		return c
	}
	return ""
}

// cleanFiles trims the candidate files and drops empty and repeated ones.
func cleanFiles(files []string) []string {
	if len(files) == 0 {
		return nil
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if f = strings.TrimSpace(f); f != "" && !containsString(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
