package lex

import (
	"slices"
	"testing"
)

func TestSplitKeepsPathsAndSplitsPunctuation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"Delete notes.md, then src/main.go.", []string{"delete", "notes.md", "then", "src/main.go"}},
		{"git push --force; rm -rf ./build!", []string{"git", "push", "--force", "rm", "-rf", "./build"}},
		{"Don't force-push my_branch?", []string{"don't", "force-push", "my_branch"}},
		{"Don’t “quote” me", []string{"don't", "quote", "me"}},
		{"1. first\n2) second - third", []string{"1", "first", "2", "second", "third"}},
		{"熱い凍ったチーズ", []string{"熱い", "凍った", "チーズ"}},
		{"このファイルを削除して。ログ、全部！", []string{"この", "ファイル", "を", "削除して", "ログ", "全部"}},
		{"...", nil},
		{"それからこのファイルを直して", []string{"それから", "この", "ファイル", "を", "直して"}},
		{"put it in . please", []string{"put", "it", "in", ".", "please"}},
		{"ここに置いて", []string{"ここに", "置いて"}},
	}
	for _, c := range cases {
		var got []string
		for _, tok := range Split(c.in, nil) {
			got = append(got, tok.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitMarksClausesAndSentences(t *testing.T) {
	t.Parallel()
	toks := Split("a hot block that freezes, then stops. Next one", nil)
	clause := func(i int) int { return toks[i].Clause }
	sentence := func(i int) int { return toks[i].Sentence }
	// a hot block that freezes | then stops | next one
	if clause(0) != clause(4) || clause(4) == clause(5) || sentence(4) != sentence(6) || sentence(6) == sentence(7) {
		t.Errorf("clauses/sentences wrong: %+v", toks)
	}
	// The dot after initials ends no sentence: "George R.R. Martin" is one name.
	toks = Split("read George R.R. Martin. Then U.S.A. sales", nil)
	if toks[1].Sentence != toks[3].Sentence || toks[3].Clause != toks[2].Clause || toks[3].Sentence == toks[4].Sentence || toks[5].Sentence != toks[6].Sentence {
		t.Errorf("initials end a sentence: %+v", toks)
	}
	toks = Split("ask Ursula K. Le Guin. A. b", nil)
	if toks[1].Sentence != toks[4].Sentence || toks[4].Sentence == toks[5].Sentence || toks[5].Sentence == toks[6].Sentence {
		t.Errorf("a middle initial ends a sentence, or a lone letter does not: %+v", toks)
	}
}

func TestReplyReadsOnlyAWholeReply(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"yes": "yes", "Sure": "yes", "OK.": "yes", "go ahead": "yes", "はい": "yes",
		"no": "no", "Nope!": "no", "don't": "no", "いいえ": "no",
		"no backups needed": "", "yes I am sure": "", "notes.md": "", "": "", "banana": "",
	}
	for in, want := range cases {
		if got := Reply(in); got != want {
			t.Errorf("Reply(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRepliesCountsOnlyAClauseThatIsTheWord(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text    string
		yes, no bool
	}{
		{"delete the cache, yes", true, false},
		{"delete notes.md, there is no other copy", false, false},
		{"no backups needed", false, false},
		{"はい、削除して", true, false},
		{"No. Keep it", false, true},
		{"yes, no", true, true},
	}
	for _, c := range cases {
		if yes, no := Replies(Split(c.text, nil)); yes != c.yes || no != c.no {
			t.Errorf("Replies(%q) = %v, %v; want %v, %v", c.text, yes, no, c.yes, c.no)
		}
	}
}

func TestIsRootWord(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"root", "Root", ".", "./", "ここ", "ここに", "here", "ルート", "root直下"} {
		if !IsRootWord(w) {
			t.Errorf("IsRootWord(%q) = false", w)
		}
	}
	for _, w := range []string{"src", "there", "rooted", "a.md"} {
		if IsRootWord(w) {
			t.Errorf("IsRootWord(%q) = true", w)
		}
	}
}
