package rules

import (
	"slices"
	"testing"
)

func TestTokenizeKeepsPathsAndSplitsPunctuation(t *testing.T) {
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
	}
	for _, c := range cases {
		var got []string
		for _, tok := range tokenize(c.in, nil) {
			got = append(got, tok.text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("tokenize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTokenizeMarksClausesAndSentences(t *testing.T) {
	t.Parallel()
	toks := tokenize("a hot block that freezes, then stops. Next one", nil)
	clause := func(i int) int { return toks[i].clause }
	sentence := func(i int) int { return toks[i].sentence }
	// a hot block that freezes | then stops | next one
	if clause(0) != clause(4) || clause(4) == clause(5) || sentence(4) != sentence(6) || sentence(6) == sentence(7) {
		t.Errorf("clauses/sentences wrong: %+v", toks)
	}
}

func TestWithinOneIsDamerauLevenshteinDistanceOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want bool
	}{
		{"frozn", "frozen", true},  // insertion
		{"frozen", "frozn", true},  // deletion
		{"frozan", "frozen", true}, // substitution
		{"forzen", "frozen", true}, // transposition
		{"frozen", "frozen", true},
		{"fzorne", "frozen", false},
		{"could", "cold", true}, // close, which is why known words are never corrected
		{"fro", "frozen", false},
	}
	for _, c := range cases {
		if got := withinOne([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("withinOne(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestCorrectNeverTouchesKnownWords(t *testing.T) {
	t.Parallel()
	m, err := embeddedProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"general", "minecraft-mod"} {
		c := m[name].c
		for _, w := range []string{"could", "world", "would", "scold", "heart", "front", "black", "smell", "notes.md"} {
			toks := c.annotate(tokenize(w, nil))
			if len(toks) != 1 || toks[0].fixed {
				t.Errorf("%s: %q was corrected to %q", name, w, toks[0].word)
			}
		}
		for w, want := range map[string]string{"frozn": "frozen", "fozen": "frozen", "burnning": "burning"} {
			toks := c.annotate(tokenize(w, nil))
			if len(toks) != 1 || !toks[0].fixed || len(toks[0].e.sides) == 0 || toks[0].e.sides[0].display != want {
				t.Errorf("%s: %q corrected to %q, want the side word %q", name, w, toks[0].word, want)
			}
		}
	}
}
