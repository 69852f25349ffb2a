package askonce_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"pgregory.net/rapid"
)

func ptr(f float64) *float64 { return &f }

// A value of the question's type is taken as that value; a string that
// spells one exactly is that value; anything else is refused naming what
// the question accepts (docs/protocol.md rule 7).
func TestRule7_AnAnswerIsTypedByItsQuestionOrRefused(t *testing.T) {
	t.Parallel()
	replicas := askonce.Question{Type: askonce.QuestionNumber, Text: "How many replicas?", Constraints: askonce.Constraints{Integer: true, Minimum: ptr(1), Maximum: ptr(10)}}
	ratio := askonce.Question{Type: askonce.QuestionNumber, Text: "Which ratio?"}
	confirm := askonce.Question{Type: askonce.QuestionConfirm, Text: "Migrate?"}
	db := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which database?", Options: []string{"Postgres", "postgres", "my sql", "my  sql"}}
	regions := askonce.Question{Type: askonce.QuestionSelectMany, Text: "Which regions?", Options: []string{"eu", "us", "EU", "ap"}, Constraints: askonce.Constraints{MinItems: 1, MaxItems: 2}}
	email := askonce.Question{Type: askonce.QuestionFreeText, Text: "Whose email?", Constraints: askonce.Constraints{Format: askonce.FormatEmail}}
	date := askonce.Question{Type: askonce.QuestionFreeText, Text: "Which day?", Constraints: askonce.Constraints{Format: askonce.FormatDate}}
	when := askonce.Question{Type: askonce.QuestionFreeText, Text: "When?", Constraints: askonce.Constraints{Format: askonce.FormatDateTime}}
	site := askonce.Question{Type: askonce.QuestionFreeText, Text: "Which site?", Constraints: askonce.Constraints{Format: askonce.FormatURI}}
	name := askonce.Question{Type: askonce.QuestionFreeText, Text: "Which name?", Constraints: askonce.Constraints{MinLength: 2, MaxLength: 5}}
	free := askonce.Question{Type: askonce.QuestionFreeText, Text: "Anything else?"}
	for _, q := range []*askonce.Question{&replicas, &ratio, &confirm, &db, &regions, &email, &date, &when, &site, &name, &free} {
		if err := q.Normalize(); err != nil {
			t.Fatalf("normalize %q: %v", q.Text, err)
		}
	}
	cases := []struct {
		name string
		q    *askonce.Question
		v    askonce.Value
		want string // the value's JSON; "" for refused
		msg  string // in the error
	}{
		{"IntegerSpelledIsANumber", &replicas, askonce.TextValue(" 3 "), `3`, ""},
		{"IntegerAsANumber", &replicas, askonce.NumberValue("3"), `3`, ""},
		{"IntegerWithAZeroFraction", &replicas, askonce.NumberValue("3.0"), `3`, ""},
		{"WordsForANumberAreRefused", &replicas, askonce.TextValue("three"), "", `"three" is not a number; allowed: a whole number from 1 to 10`},
		{"AboveTheMaximumIsRefused", &replicas, askonce.TextValue("500"), "", "500 is out of range; allowed: a whole number from 1 to 10"},
		{"BelowTheMinimumIsRefused", &replicas, askonce.IntValue(0), "", "out of range"},
		{"AFractionIsNotWhole", &replicas, askonce.NumberValue("2.5"), "", "not a whole number"},
		{"PastInt64IsRefused", &replicas, askonce.NumberValue("9223372036854775808"), "", "past the largest whole number"},
		{"PastFloat64IsRefused", &ratio, askonce.NumberValue("1e400"), "", "past the largest number"},
		{"NaNIsRefused", &ratio, askonce.TextValue("NaN"), "", "not a number"},
		{"InfinityIsRefused", &ratio, askonce.FloatValue(1 / zero()), "", "not a number"},
		{"HexIsRefused", &ratio, askonce.TextValue("0x10"), "", "not a number"},
		{"AFraction", &ratio, askonce.TextValue("2.5"), `2.5`, ""},
		{"ABooleanIsNotANumber", &ratio, askonce.BoolValue(true), "", "is true or false"},
		{"ConfirmTakesABoolean", &confirm, askonce.BoolValue(false), `false`, ""},
		{"ConfirmTakesYesSpelled", &confirm, askonce.TextValue("yes"), `true`, ""},
		{"ConfirmTakesItsOption", &confirm, askonce.OptionValue("no"), `false`, ""},
		{"ConfirmRefusesANumber", &confirm, askonce.IntValue(1), "", "is a number"},
		{"ConfirmRefusesOtherWords", &confirm, askonce.TextValue("perhaps"), "", "not yes or no"},
		{"APickIsTheOptionItself", &db, askonce.OptionValue("postgres"), `"postgres"`, ""},
		{"APickDifferingInCaseIsAnotherOption", &db, askonce.OptionValue("Postgres"), `"Postgres"`, ""},
		{"TextNamingAnOptionExactlyIsIt", &db, askonce.TextValue("postgres"), `"postgres"`, ""},
		{"TextMatchingTwoOptionsIgnoringCaseIsRefused", &db, askonce.TextValue("POSTGRES"), "", "not one of the options"},
		{"OptionsDifferingInSpacesStayDistinct", &db, askonce.OptionValue("my  sql"), `"my  sql"`, ""},
		{"APickNotOfferedIsRefused", &db, askonce.OptionValue("MySQL"), "", `"MySQL" is not one of the options; allowed: Postgres, postgres, my sql, my  sql`},
		{"AListForOneValueIsRefused", &db, askonce.OptionsValue("postgres"), "", "a list where one value is expected"},
		{"PicksInTheOptionsOrder", &regions, askonce.OptionsValue("us", "eu"), `["eu","us"]`, ""},
		{"PicksDifferingInCaseStayDistinct", &regions, askonce.OptionsValue("EU", "eu"), `["eu","EU"]`, ""},
		{"PicksSpelledOnOneLine", &regions, askonce.TextValue("eu, ap"), `["eu","ap"]`, ""},
		{"APickTwiceIsRefused", &regions, askonce.OptionsValue("eu", "eu"), "", `picks "eu" twice`},
		{"TooManyPicksAreRefused", &regions, askonce.OptionsValue("eu", "us", "ap"), "", "picks 3; allowed: 1 to 2 different of: eu, us, EU, ap"},
		{"NoPickIsRefused", &regions, askonce.OptionsValue(), "", "picks nothing"},
		{"APickNotOfferedAmongPicksIsRefused", &regions, askonce.OptionsValue("eu", "mars"), "", `"mars" is not one of the options`},
		{"OneValueForAListIsRefused", &regions, askonce.OptionValue("eu"), "", "question offers no options to pick"},
		{"AnEmailAddress", &email, askonce.TextValue("dana@example.com"), `"dana@example.com"`, ""},
		{"NotAnEmailAddress", &email, askonce.TextValue("Dana Lee"), "", "not an email address"},
		{"ADate", &date, askonce.TextValue("2026-11-28"), `"2026-11-28"`, ""},
		{"NotADate", &date, askonce.TextValue("2026-02-30"), "", "not a date"},
		{"ADateTime", &when, askonce.TextValue("2026-11-28T09:30:00Z"), `"2026-11-28T09:30:00Z"`, ""},
		{"NotADateTime", &when, askonce.TextValue("tomorrow at nine"), "", "not a date and time"},
		{"AURI", &site, askonce.TextValue("https://example.com/x"), `"https://example.com/x"`, ""},
		{"ARelativeURIIsRefused", &site, askonce.TextValue("example.com"), "", "not an absolute URI"},
		{"TooShortIsRefused", &name, askonce.TextValue("x"), "", "1 characters; allowed: text of 2 to 5 characters"},
		{"TooLongIsRefused", &name, askonce.TextValue("Dana Lee"), "", "8 characters"},
		{"ABooleanForTextIsRefused", &free, askonce.BoolValue(true), "", "is true or false"},
		{"ANumberForTextIsRefused", &free, askonce.IntValue(3), "", "is a number"},
		{"InvalidUTF8IsRefused", &free, askonce.TextValue("a\xffb"), "", "not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := askonce.ValidateAnswer(c.q, askonce.AnswerOf(c.v))
			if c.want == "" {
				if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), c.msg) {
					t.Fatalf("answer %s: %s, %v; want EINVALID saying %q", c.v.JSON(), got.JSON(), err, c.msg)
				}
				return
			}
			if err != nil || string(got.JSON()) != c.want {
				t.Fatalf("answer %s: %s, %v; want %s", c.v.JSON(), got.JSON(), err, c.want)
			}
			// Validated once, it validates again unchanged.
			again, err := askonce.ValidateAnswer(c.q, got)
			if err != nil || !again.Equal(got) {
				t.Fatalf("validated again: %+v, %v; want %+v", again, err, got)
			}
		})
	}
}

func zero() float64 { return 0 }

// Normalize keeps a question's constraints of its type and refuses bounds
// no answer meets; options differing in case or spaces stay distinct.
func TestRule7_QuestionConstraintsAreChecked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		q    askonce.Question
		msg  string
	}{
		{"MinimumAboveMaximum", askonce.Question{Type: askonce.QuestionNumber, Text: "n?", Constraints: askonce.Constraints{Minimum: ptr(5), Maximum: ptr(1)}}, "minimum 5 is above its maximum 1"},
		{"NoWholeNumberBetween", askonce.Question{Type: askonce.QuestionNumber, Text: "n?", Constraints: askonce.Constraints{Integer: true, Minimum: ptr(1.2), Maximum: ptr(1.8)}}, "no whole number"},
		{"MinItemsAboveMaxItems", askonce.Question{Type: askonce.QuestionSelectMany, Text: "which?", Options: []string{"a", "b"}, Constraints: askonce.Constraints{MinItems: 2, MaxItems: 1}}, "minItems 2"},
		{"SelectManyWithoutOptions", askonce.Question{Type: askonce.QuestionSelectMany, Text: "which?"}, "needs at least one option"},
		{"UnknownFormat", askonce.Question{Type: askonce.QuestionFreeText, Text: "which?", Constraints: askonce.Constraints{Format: "phone"}}, `format "phone" is not one of email, uri, date, date-time`},
		{"MinLengthAboveMaxLength", askonce.Question{Type: askonce.QuestionFreeText, Text: "which?", Constraints: askonce.Constraints{MinLength: 5, MaxLength: 2}}, "minLength 5 is above its maxLength 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := c.q
			if err := q.Normalize(); askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), c.msg) {
				t.Fatalf("normalize: %v; want EINVALID saying %q", err, c.msg)
			}
		})
	}
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which?", Options: []string{"Postgres", "postgres", "a b", "a  b", "postgres"},
		Constraints: askonce.Constraints{OptionTitles: []string{"PG (upper)", "", "", "", "dup"}, Minimum: ptr(1), Format: askonce.FormatEmail}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Options, []string{"Postgres", "postgres", "a b", "a  b"}) || q.OptionTitle(0) != "PG (upper)" || q.OptionTitle(1) != "postgres" ||
		q.Minimum != nil || q.Format != "" {
		t.Fatalf("normalized %+v: want the exact duplicate dropped, the others distinct, titles kept, other types' constraints cleared", q)
	}
}

// An answer object's names are matched to fields exactly, else ignoring
// case; two names for one field (differing only in case) are refused,
// always, as is any name that is no field and any value that is none.
func TestRule7_FieldNamesDifferingOnlyInCaseAreRefusedEveryTime(t *testing.T) {
	t.Parallel()
	q := normalized(t, askonce.Question{Text: "Deploy:", Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Options: []string{"staging", "production"}, Required: true},
		{Name: "replicas", Type: askonce.QuestionNumber, Constraints: askonce.Constraints{Integer: true, Minimum: ptr(1), Maximum: ptr(10)}},
		{Name: "region", Type: askonce.QuestionFreeText},
	}})
	for range 20 {
		_, err := askonce.ValidateAnswer(&q, mustJSON(`{"environment":"staging","ENVIRONMENT":"production"}`))
		var ae *askonce.Error
		if !asError(err, &ae) || len(ae.Fields) != 1 || ae.Fields[0].Name != "environment" || !strings.Contains(ae.Fields[0].Message, "given twice") {
			t.Fatalf("two names for one field: %v; want EINVALID naming the field", err)
		}
	}
	a, err := askonce.ValidateAnswer(&q, mustJSON(`{"Environment":"staging","replicas":"3"}`))
	if err != nil || string(a.JSON()) != `{"environment":"staging","replicas":3}` {
		t.Fatalf("one name differing in case: %s, %v", a.JSON(), err)
	}
	_, err = askonce.ValidateAnswer(&q, mustJSON(`{"environment":"staging","replicas":{"n":[1,2]},"region":true,"bogus":"x"}`))
	var ae *askonce.Error
	if !asError(err, &ae) {
		t.Fatalf("bad fields: %v", err)
	}
	got := map[string]askonce.FieldError{}
	for _, fe := range ae.Fields {
		got[fe.Name] = fe
	}
	if len(got) != 3 || !strings.Contains(got["replicas"].Message, "is an object") || got["replicas"].Accepts != "a whole number from 1 to 10" ||
		!strings.Contains(got["region"].Message, "true or false") || !strings.Contains(got["bogus"].Message, "not a field") {
		t.Fatalf("bad fields %+v", ae.Fields)
	}
}

// ParseAnswerJSON reads JSON as it is given: input that is not JSON, or
// not valid UTF-8, is EINVALID; an object keeps its order and repeats.
func TestParseAnswerJSONRefusesWhatIsNotJSON(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"NaN", "Infinity", `{"a": NaN}`, `"a" "b"`, `{"a":1} x`, "\"\xff\"", `{"a":`, ""} {
		if _, err := askonce.ParseAnswerJSON([]byte(bad)); askonce.ErrorCode(err) != askonce.EINVALID {
			t.Errorf("%q: %v; want EINVALID", bad, err)
		}
	}
	a, err := askonce.ParseAnswerJSON([]byte(`{"b":1,"a":null,"b":true,"c":["x"]}`))
	if err != nil || len(a.Fields) != 3 || a.Fields[0].Name != "b" || a.Fields[1].Name != "b" || a.Fields[2].Value.Kind != askonce.KindOptions {
		t.Fatalf("object: %+v, %v", a, err)
	}
}

// Any valid typed answer survives the store's encoding, its JSON (what
// the API, the interpreter and the builder see) read back, and its text
// (what text channels and memory keep) read back, unchanged.
func TestTypedAnswerSurvivesStoreAndRendering(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		q := genQuestion(t)
		v := genValue(t, &q)
		a, err := askonce.ValidateAnswer(&q, askonce.AnswerOf(v))
		if err != nil {
			t.Skipf("drew an invalid answer: %v", err) // generated to be valid; a few are not (the picks' count)
		}
		back, err := askonce.DecodeAnswer(a.Encode())
		if err != nil || !back.Equal(a) {
			t.Fatalf("stored %s read back %+v, %v; want %+v", a.Encode(), back, err, a)
		}
		var fromJSON askonce.Answer
		if err := json.Unmarshal(a.JSON(), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if got, err := askonce.ValidateAnswer(&q, fromJSON); err != nil || !got.Equal(a) {
			t.Fatalf("JSON %s read back %+v, %v; want %+v", a.JSON(), got, err, a)
		}
		if got, err := askonce.ValidateAnswer(&q, askonce.TextAnswer(a.Value.String())); q.Type != askonce.QuestionSelectMany && (err != nil || !got.Equal(a)) {
			t.Fatalf("text %q read back %+v, %v; want %+v", a.Value.String(), got, err, a)
		}
	})
}

func genQuestion(t *rapid.T) askonce.Question {
	opts := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z][A-Za-z ]{0,6}[a-z]`), 2, 5, func(s string) string { return s }).Draw(t, "options")
	q := askonce.Question{Text: "Which?", Type: rapid.SampledFrom(askonce.QuestionTypes).Draw(t, "type"), Options: opts}
	switch q.Type {
	case askonce.QuestionNumber:
		q.Integer = rapid.Bool().Draw(t, "integer")
		lo := float64(rapid.IntRange(-1000, 1000).Draw(t, "min"))
		q.Minimum, q.Maximum = &lo, ptr(lo+float64(rapid.IntRange(0, 1000).Draw(t, "span")))
	case askonce.QuestionSelectMany:
		q.MaxItems = rapid.IntRange(1, len(opts)).Draw(t, "maxItems")
	case askonce.QuestionTargetFile:
		q.Options = []string{"a.go", "docs/x.md"}
	}
	if err := q.Normalize(); err != nil {
		t.Fatalf("normalize %+v: %v", q, err)
	}
	return q
}

func genValue(t *rapid.T, q *askonce.Question) askonce.Value {
	switch q.Type {
	case askonce.QuestionConfirm:
		return askonce.BoolValue(rapid.Bool().Draw(t, "yes"))
	case askonce.QuestionSelectOne:
		return askonce.OptionValue(rapid.SampledFrom(q.Options).Draw(t, "pick"))
	case askonce.QuestionSelectMany:
		n := rapid.IntRange(1, max(q.MaxItems, 1)).Draw(t, "n")
		picks := rapid.Permutation(q.Options).Draw(t, "picks")[:min(n, len(q.Options))]
		return askonce.OptionsValue(picks...)
	case askonce.QuestionNumber:
		if q.Integer {
			return askonce.IntValue(int64(rapid.IntRange(int(*q.Minimum), int(*q.Maximum)).Draw(t, "n")))
		}
		return askonce.FloatValue(rapid.Float64Range(*q.Minimum, *q.Maximum).Draw(t, "x"))
	case askonce.QuestionTargetFile:
		return askonce.PathValue(rapid.SampledFrom([]string{"a.go", "docs/x.md", "src/new file.go", "."}).Draw(t, "path"))
	}
	return askonce.TextValue(rapid.StringMatching(`[\p{L}\p{N}][\p{L}\p{N}\p{P} ]{0,40}`).Draw(t, "text"))
}
