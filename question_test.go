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

// normalizeTextAsBefore is NormalizeText as the standard library's
// functions write it, which appendNormalized does in one pass.
func normalizeTextAsBefore(text string) string {
	s := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	return strings.TrimRight(s, "?!. ")
}

func TestRule5_NormalisationIsLowerFieldsAndTrim(t *testing.T) {
	t.Parallel()
	for _, s := range normalizeSeeds {
		if got, want := NormalizeText(s), normalizeTextAsBefore(s); got != want {
			t.Errorf("NormalizeText(%q) = %q, want %q", s, got, want)
		}
	}
}

// normalizeSeeds are texts whose normalisation takes every path: upper
// case outside ASCII whose lower case is longer or shorter, white space
// outside ASCII (U+0085, U+00A0, U+3000), invalid UTF-8 and U+FFFD,
// trailing marks after and between spaces, and nothing left.
var normalizeSeeds = []string{
	"", " ", "?", " ?! . ", "Which file?", "  which   FILE ", "which\tfile\n",
	"ÀÉÎ Straße?", "\u023a\u2c65 \u0130stanbul", "a\u0085b\u00a0c\u3000d",
	"bad \xff\xfe byte", "\ufffd replaced", "ends . ?", "x\u00a0?", "?.!a", "A\u200bB",
}

func FuzzNormalizeText(f *testing.F) {
	for _, s := range normalizeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizeText(s), normalizeTextAsBefore(s); got != want {
			t.Errorf("NormalizeText(%q) = %q, want %q", s, got, want)
		}
	})
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
		{free, "\xff\xfe", "", true},
	}
	for _, c := range cases {
		got, err := ValidateAnswer(c.q, TextAnswer(c.answer))
		if c.invalid {
			if ErrorCode(err) != EINVALID {
				t.Errorf("%s %q: err %v, want invalid", c.q.Type, c.answer, err)
			}
			continue
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s %q = %q, %v; want %q", c.q.Type, c.answer, got, err, c.want)
		}
	}
	_, err := ValidateAnswer(sel, TextAnswer("dev"))
	var e *Error
	if !asError(err, &e) || !slices.Equal(e.Allowed, sel.Options) || !strings.Contains(e.Message, "Staging, Production, preview") {
		t.Errorf("invalid answer error does not list the allowed values: %v", err)
	}
}

// Rule 7: FREE_TEXT has a visible character and at most 4 KiB; the limit
// is in bytes, counted after the surrounding white space is trimmed.
func TestRule7_FreeTextIsVisibleAndAtMost4KiB(t *testing.T) {
	t.Parallel()
	free := &Question{Type: QuestionFreeText, Text: "What?"}
	cases := []struct {
		name, answer string
		ok           bool
	}{
		{"Exactly4096BytesIsAccepted", strings.Repeat("x", 4096), true},
		{"4097BytesIsRejected", strings.Repeat("x", 4097), false},
		{"4096BytesOfMultiByteText", strings.Repeat("日", 4096/3) + "x", true},
		{"MultiByteTextOver4096Bytes", strings.Repeat("日", 4096/3+1), false},
		{"SurroundingSpaceDoesNotCount", "  " + strings.Repeat("x", 4096) + "\n", true},
		{"OnlySpaces", " \t\n ", false},
		{"OnlyZeroWidthSpace", "\u200b", false},
		{"OnlyControlCharacters", "\x01\x02", false},
		{"OnlyBidiControls", "\u202e\u2066", false},
		{"OneVisibleCharacter", "\u200b.", true},
		{"JapaneseText", "ポート8080を使って", true},
		{"MultipleLines", "first line\nsecond line", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ValidateAnswer(free, TextAnswer(c.answer))
			if !c.ok {
				if ErrorCode(err) != EINVALID {
					t.Fatalf("answer of %d bytes accepted as %q, %v", len(c.answer), got, err)
				}
				return
			}
			if err != nil || got.String() != strings.TrimSpace(c.answer) {
				t.Fatalf("ValidateAnswer = %q, %v; want the answer trimmed", got, err)
			}
		})
	}
	if _, err := ValidateAnswer(free, TextAnswer(strings.Repeat("x", 4097))); !strings.Contains(ErrorMessage(err), "4097 bytes; the limit is 4096") {
		t.Errorf("over-long answer message %q does not give the size and the limit", ErrorMessage(err))
	}
}

// Rule 7: an answer outside the options of an allowOther SELECT_ONE
// question is the user's own answer; an option match still normalises to
// the option; the rules of FREE_TEXT apply to the other text.
func TestRule7_AllowOtherAcceptsTheUsersOwnAnswer(t *testing.T) {
	t.Parallel()
	q := &Question{Type: QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen", "Frosted"}, AllowOther: true}
	cases := []struct {
		name, answer, want string
		ok                 bool
	}{
		{"ExactOption", "hot", "hot", true},
		{"OptionIgnoringCase", "HOT", "hot", true},
		{"UniquePrefixIsTheOption", "fros", "Frosted", true},
		{"AmbiguousPrefixIsOtherText", "fr", "fr", true},
		{"OtherText", "  banana ", "banana", true},
		{"OtherTextOf4096Bytes", strings.Repeat("b", 4096), strings.Repeat("b", 4096), true},
		{"OtherTextOf4097Bytes", strings.Repeat("b", 4097), "", false},
		{"Empty", "", "", false},
		{"OnlySpaces", "   ", "", false},
		{"OnlyInvisible", "\u200b\u2060", "", false},
		{"NotUTF8", "\xff", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ValidateAnswer(q, TextAnswer(c.answer))
			if !c.ok {
				if ErrorCode(err) != EINVALID {
					t.Fatalf("ValidateAnswer(%.20q) = %.20q, %v; want invalid", c.answer, got, err)
				}
				return
			}
			if err != nil || got.String() != c.want {
				t.Fatalf("ValidateAnswer(%.20q) = %.20q, %v; want %.20q", c.answer, got, err, c.want)
			}
		})
	}
	closed := q.Clone()
	closed.AllowOther = false
	if _, err := ValidateAnswer(&closed, TextAnswer("banana")); ErrorCode(err) != EINVALID {
		t.Errorf("a question without allowOther took an answer outside its options: %v", err)
	}
}

// The 422 for an invalid answer to an allowOther question lists the
// options and says that other text is allowed too.
func TestRule7_InvalidAnswerToAllowOtherSaysOtherTextIsAllowed(t *testing.T) {
	t.Parallel()
	q := &Question{Type: QuestionSelectOne, Text: "Which?", Options: []string{"hot", "frozen"}, AllowOther: true}
	_, err := ValidateAnswer(q, TextAnswer("  "))
	var e *Error
	if !asError(err, &e) || e.Code != EINVALID {
		t.Fatalf("blank answer: %v", err)
	}
	if !slices.Equal(e.Allowed, q.Options) || !strings.Contains(e.Message, "allowed: hot, frozen, or other text of your own (at most 4096 bytes)") {
		t.Fatalf("message %q, allowed %q", e.Message, e.Allowed)
	}
	closed := &Question{Type: QuestionSelectOne, Text: "Which?", Options: []string{"hot", "frozen"}}
	if _, err := ValidateAnswer(closed, TextAnswer("banana")); strings.Contains(ErrorMessage(err), "other text") {
		t.Fatalf("a closed question's message offers other text: %q", ErrorMessage(err))
	}
}

// Only SELECT_ONE questions may allow other answers: Normalize clears
// allowOther on the other types, whoever set it.
func TestRule7_OnlySelectOneAllowsOther(t *testing.T) {
	t.Parallel()
	for _, q := range []Question{
		{Type: QuestionConfirm, Text: "Delete?", AllowOther: true},
		{Type: QuestionTargetFile, Text: "Which file?", Options: []string{"a.go"}, AllowOther: true},
		{Type: QuestionFreeText, Text: "What?", AllowOther: true},
		{Reason: "target_file_exists", Text: "Overwrite?", AllowOther: true},
	} {
		if err := q.Normalize(); err != nil {
			t.Fatalf("Normalize(%s): %v", q.Type, err)
		}
		if q.AllowOther {
			t.Errorf("%s question kept allowOther", q.Type)
		}
	}
	sel := Question{Type: QuestionSelectOne, Text: "Which?", Options: []string{"a", "b"}, AllowOther: true, Default: "neither"}
	if err := sel.Normalize(); err != nil || !sel.AllowOther {
		t.Fatalf("SELECT_ONE lost allowOther: %+v, %v", sel, err)
	}
	if sel.Default != "neither" {
		t.Errorf("an allowOther question dropped a default of other text: %q", sel.Default)
	}
	if _, err := ValidateAnswer(&Question{Type: QuestionConfirm, Text: "Delete?", Options: []string{"yes", "no"}}, TextAnswer("perhaps")); ErrorCode(err) != EINVALID {
		t.Errorf("CONFIRM took other text: %v", err)
	}
}

// Rule 7: TARGET_FILE answers are paths a builder will open. The same
// ValidatePath checks a job's files.
func TestRule7_TargetFileAnswerIsAPathABuilderCanUse(t *testing.T) {
	t.Parallel()
	file := &Question{Type: QuestionTargetFile, Text: "Which file?", Options: []string{"a.go", "docs/notes.md"}}
	cases := []struct {
		name, answer, want string
	}{
		{"OfferedFile", "docs/notes.md", "docs/notes.md"},
		{"NewRelativePathIsCleaned", "./src/../new/file.go", "new/file.go"},
		{"ProjectRoot", ".", "."},
		{"Japanese", "ドキュメント/メモ.md", "ドキュメント/メモ.md"},
		{"TildeInsideIsFine", "notes~1.md", "notes~1.md"},
		{"Exactly1024Bytes", strings.Repeat("a/", 511) + "bc", strings.Repeat("a/", 511) + "bc"},
		{"LeadingTilde", "~/secrets", ""},
		{"LeadingTildeUser", "~root/x", ""},
		{"Newline", "a.go\nrm -rf /", ""},
		{"CarriageReturn", "a.go\r", "a.go"}, // trailing white space is trimmed from answers
		{"EmbeddedCarriageReturn", "a\r.go", ""},
		{"Tab", "a\t.go", ""},
		{"NUL", "a\x00.go", ""},
		{"Escape", "\x1b[2Ja.go", ""},
		{"DEL", "a\x7f.go", ""},
		{"C1Control", "a\u0085.go", ""},
		{"LineSeparator", "a\u2028.go", ""},
		{"BidiOverride", "a\u202egp.exe", ""},
		{"BidiIsolate", "a\u2066.go", ""},
		{"Over1024Bytes", strings.Repeat("a/", 512) + "b", ""},
		{"Absolute", "/etc/passwd", ""},
		{"Parent", "../outside.go", ""},
		{"ParentAfterClean", "a/../../b", ""},
		{"Backslash", "..\\windows", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ValidateAnswer(file, TextAnswer(c.answer))
			if c.want == "" {
				if ErrorCode(err) != EINVALID {
					t.Fatalf("ValidateAnswer(%q) = %q, %v; want invalid", c.answer, got, err)
				}
				if !strings.Contains(ErrorMessage(err), "allowed: a.go, docs/notes.md") {
					t.Errorf("message %q does not list the offered files", ErrorMessage(err))
				}
				return
			}
			if err != nil || got.String() != c.want {
				t.Fatalf("ValidateAnswer(%q) = %q, %v; want %q", c.answer, got, err, c.want)
			}
		})
	}
}

func TestValidatePathNamesTheProblem(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"~/x":                     "starts with ~",
		"a\nb":                    "control character or line break",
		"a\u202eb":                "control character or line break",
		"/abs":                    "is absolute",
		"../up":                   "leaves the project root",
		"a\\b":                    "backslash",
		"":                        "is not a path",
		"  ":                      "is not a path",
		strings.Repeat("x", 1025): "path is 1025 bytes; the limit is 1024",
		"\xff":                    "not valid UTF-8",
	} {
		_, err := ValidatePath(p)
		if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("ValidatePath(%.30q) = %v; want invalid saying %q", p, err, want)
		}
	}
}

// Every option a TARGET_FILE question offers is an answer it accepts:
// options that are not usable paths are dropped when it is normalised.
func TestRule7_TargetFileOptionsAreUsablePaths(t *testing.T) {
	t.Parallel()
	offered := []string{"a.go", "~/.ssh/id_rsa", "../x", "b\n.go", "./docs/c.md"}
	q := Question{Type: QuestionTargetFile, Text: "Which file?", Options: offered}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Options, []string{"a.go", "./docs/c.md"}) {
		t.Fatalf("options %q", q.Options)
	}
	if offered[1] != "~/.ssh/id_rsa" {
		t.Fatal("Normalize changed the caller's slice")
	}
	for _, o := range q.Options {
		if _, err := ValidateAnswer(&q, TextAnswer(o)); err != nil {
			t.Errorf("offered option %q is rejected: %v", o, err)
		}
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

func TestRule6_RootWordAnswersAreStoredAsDot(t *testing.T) {
	q := &Question{Type: QuestionTargetFile, Text: "Which file?", Options: []string{"a.md", "b.md"}}
	for _, w := range []string{"root", "root直下", ".", "ここ", "here", "ルート", "ROOT"} {
		got, err := ValidateAnswer(q, TextAnswer(w))
		if err != nil || got.String() != "." {
			t.Errorf("answer %q: %q, %v; want \".\"", w, got, err)
		}
	}
	// An offered file that happens to be spelled like a root word is
	// that file.
	q.Options = []string{"here", "b.md"}
	if got, err := ValidateAnswer(q, TextAnswer("here")); err != nil || got.String() != "here" {
		t.Errorf("offered file \"here\": %q, %v; want the file", got, err)
	}
}

// mustJSON is the answer raw, a JSON answer.
func mustJSON(raw string) Answer {
	a, err := ParseAnswerJSON([]byte(raw))
	if err != nil {
		panic(err)
	}
	return a
}
