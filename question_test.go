package askonce

import (
	"slices"
	"strings"
	"testing"
)

func TestRule5_NormalisationAndHash(t *testing.T) {
	t.Parallel()
	same := []string{"Which file?", "  which   FILE ", "which file!?", "Which file.", "which\tfile"}
	for _, s := range same {
		if NormalizeText(s) != "which file" {
			t.Errorf("NormalizeText(%q) = %q", s, NormalizeText(s))
		}
		if QuestionHash(s) != QuestionHash(same[0]) {
			t.Errorf("hash of %q differs", s)
		}
	}
	if QuestionHash("which file?") == QuestionHash("which files?") {
		t.Error("different questions share a hash")
	}
	if len(QuestionHash("x")) != 64 {
		t.Error("hash is not hex SHA-256")
	}
}

func TestRule7_ReasonsMapToTypes(t *testing.T) {
	t.Parallel()
	for reason, want := range map[string]QuestionType{
		"target_file_exists":      QuestionConfirm,
		"target_file_ambiguous":   QuestionTargetFile,
		"target_action_ambiguous": QuestionSelectOne,
		"scope_unclear":           QuestionSelectOne,
		"action_ambiguous":        QuestionSelectOne,
		"missing_required_info":   QuestionFreeText,
		"missing_context":         QuestionFreeText,
		"something_new":           QuestionFreeText,
		"":                        QuestionFreeText,
	} {
		if got := TypeForReason(reason); got != want {
			t.Errorf("TypeForReason(%q) = %s, want %s", reason, got, want)
		}
	}
}

func TestRule7_AnswersAreValidatedAgainstTheType(t *testing.T) {
	t.Parallel()
	confirm := &Question{Type: QuestionConfirm, Text: "Delete?", Options: []string{"yes", "no"}}
	sel := &Question{Type: QuestionSelectOne, Text: "Which?", Options: []string{"Staging", "Production", "preview"}}
	file := &Question{Type: QuestionTargetFile, Text: "Which file?", Options: []string{"a.go", "docs/notes.md"}}
	free := &Question{Type: QuestionFreeText, Text: "What?"}
	cases := []struct {
		q       *Question
		answer  string
		want    string
		invalid bool
	}{
		{confirm, "Y", "yes", false},
		{confirm, "はい", "yes", false},
		{confirm, "ok", "yes", false},
		{confirm, "No", "no", false},
		{confirm, "いいえ", "no", false},
		{confirm, "maybe", "", true},
		{sel, "production", "Production", false},
		{sel, "pro", "Production", false},
		{sel, "PREV", "preview", false},
		{sel, "p", "", true}, // prefix of two options
		{sel, "dev", "", true},
		{file, "docs/notes.md", "docs/notes.md", false},
		{file, "./new/file.go", "new/file.go", false},
		{file, "../outside.go", "", true},
		{file, "/etc/passwd", "", true},
		{file, "a/../../b", "", true},
		{free, "  use port 8080 ", "use port 8080", false},
		{free, "   ", "", true},
		{free, strings.Repeat("x", MaxFreeText+1), "", true},
		{free, "\xff\xfe", "", true},
	}
	for _, c := range cases {
		got, err := ValidateAnswer(c.q, c.answer)
		if c.invalid {
			if ErrorCode(err) != EINVALID {
				t.Errorf("%s %q: err %v, want invalid", c.q.Type, c.answer, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s %q = %q, %v; want %q", c.q.Type, c.answer, got, err, c.want)
		}
	}
	_, err := ValidateAnswer(sel, "dev")
	var e *Error
	if !asError(err, &e) || !slices.Equal(e.Allowed, sel.Options) || !strings.Contains(e.Message, "Staging, Production, preview") {
		t.Errorf("invalid answer error does not list the allowed values: %v", err)
	}
}

func TestRule7_QuestionsAreNormalised(t *testing.T) {
	t.Parallel()
	q := &Question{Reason: "target_file_exists", Text: " Overwrite it? ", Default: "N"}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	if q.Type != QuestionConfirm || q.Text != "Overwrite it?" || q.Default != "no" || !slices.Equal(q.Options, []string{"yes", "no"}) {
		t.Fatalf("normalised question %+v", q)
	}
	bad := []Question{{Text: ""}, {Text: "x", Type: "PICK"}, {Text: "x", Type: QuestionSelectOne, Options: []string{"one"}}}
	for _, b := range bad {
		if err := b.Normalize(); ErrorCode(err) != EINVALID {
			t.Errorf("Normalize(%+v) = %v, want invalid", b, err)
		}
	}
	q = &Question{Type: QuestionSelectOne, Text: "x", Options: []string{"a", "b"}, Default: "c"}
	if err := q.Normalize(); err != nil || q.Default != "" {
		t.Fatalf("a default outside the options was kept: %q %v", q.Default, err)
	}
}

func TestRule6_SemanticResolver(t *testing.T) {
	t.Parallel()
	confirm := &Question{Type: QuestionConfirm, Text: "Delete?", Options: []string{"yes", "no"}}
	file := &Question{Type: QuestionTargetFile, Text: "Which file?", Options: []string{"README.md", "docs/notes.md"}}
	where := &Question{Type: QuestionTargetFile, Text: "Where?"}
	sel := &Question{Type: QuestionSelectOne, Text: "Which database?", Options: []string{"postgres", "sqlite"}}
	free := &Question{Type: QuestionFreeText, Text: "What?"}
	cases := []struct {
		name, goal string
		q          *Question
		want       string
		ok         bool
	}{
		{"ConfirmYesWord", "delete the cache, yes", confirm, "yes", true},
		{"ConfirmJapaneseYes", "キャッシュを消して。はい", confirm, "yes", true},
		{"ConfirmJapaneseNo", "いいえ、消さないで", confirm, "no", true},
		{"ConfirmNoWordWholeToken", "no, keep the cache", confirm, "no", true},
		{"NotesMdIsNotNo", "update notes.md please", confirm, "", false},
		{"NothingIsNotNo", "nothing to say, known issue", confirm, "", false},
		{"YesAndNoIsNoAnswer", "yes or no, you decide", confirm, "", false},
		{"ExactFilePath", "fix the typo in docs/notes.md", file, "docs/notes.md", true},
		{"FileNameSubstringIsNotAPath", "fix the typo in mynotes.md", file, "", false},
		{"RootWordEnglish", "put it here", where, ".", true},
		{"RootWordJapanese", "root直下に置いて", where, ".", true},
		{"RootWordJapaneseKoko", "ここに置いて", where, ".", true},
		{"RootDot", "create it in .", where, ".", true},
		{"RootWordResolvesWhenRootIsNotOffered", "put it at the root", file, ".", true},
		{"RootWordAfterOtherKana", "それからここに置いて", file, ".", true},
		{"OfferedFileWinsOverRootWord", "put README.md here", file, "README.md", true},
		{"NoInsideAClauseIsNotAReply", "delete notes.md, there is no other copy", confirm, "", false},
		{"NoAsADeterminerIsNotAReply", "no backups needed, delete the cache", confirm, "", false},
		{"YesWithinASentenceIsNotAReply", "yes I am sure", confirm, "", false},
		{"SureIsYes", "wipe the cache. Sure.", confirm, "yes", true},
		{"SelectExactOption", "store it in sqlite", sel, "sqlite", true},
		{"SelectUniquePrefix", "store it in postg", sel, "postgres", true},
		{"SelectBothIsNoAnswer", "postgres or sqlite", sel, "", false},
		{"SelectSubstringIsNotAToken", "use mysqlite", sel, "", false},
		{"FreeTextNeverResolves", "yes here sqlite", free, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Resolve(c.goal, c.q)
			if got != c.want || ok != c.ok {
				t.Fatalf("Resolve(%q) = %q, %v; want %q, %v", c.goal, got, ok, c.want, c.ok)
			}
		})
	}
}
