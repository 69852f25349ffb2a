package rules

import (
	"slices"
	"testing"
)

// The matcher: whole words, case- and plural-insensitive; in Japanese,
// the end of a candidate at a script boundary.
func TestCandidateHeadMatchesWholeWordsInEnglishAndJapanese(t *testing.T) {
	t.Parallel()
	cases := []struct {
		word, candidate string
		want            bool
	}{
		{"pepper", "black pepper", true},
		{"Pepper", "Bell Pepper", true},
		{"peppers", "bell pepper", true},
		{"pepper", "bell peppers", true},
		{"box", "lunch boxes", true},
		{"berry", "blue berries", true},
		{"glass", "wine glass", true},
		{"pepper", "pepper mill", false}, // the head is the last word
		{"pepp", "black pepper", false},  // whole words only
		{"cup", "cupboard", false},
		{"胡椒を", "黒胡椒", true},
		{"胡椒", "白胡椒", true},
		{"ペッパー", "ブラックペッパー", true},
		{"椒", "黒胡椒", true},       // kanji in kanji: a boundary the tokenizer cannot see; containment at the script's end
		{"ー", "ブラックペッパー", false}, // a long-vowel mark alone is no word
		{"胡椒", "胡椒入れ", false},
		{"table", "DiningTable", true}, // identifiers split into words
		{"apple", "Apple_2", true},
		{"cluster", "us-east-cluster", true},
	}
	for _, c := range cases {
		if got := headMatch(wordKey(lower(c.word)), nameOf(c.candidate)); got != c.want {
			t.Errorf("headMatch(%q, %q) = %v, want %v", c.word, c.candidate, got, c.want)
		}
	}
}

func TestCandidatesAskOnlyWhenAReferenceFitsTwoOrMore(t *testing.T) {
	t.Parallel()
	spices := []string{"black pepper", "bell pepper", "olive oil"}
	cups := []string{"red cup", "blue cup", "plate"}
	runDetector(t, func(in *input) *asked { r := detectCandidates(in); return &r.asked }, []detectorCase{
		{goal: "use the pepper", cands: spices, options: asks("black pepper", "bell pepper"), text: "Which “pepper” is meant"},
		{goal: "add pepper to the soup", cands: spices, options: asks("black pepper", "bell pepper")},
		{goal: "Pick up the cup and put it on the plate", cands: cups, options: asks("red cup", "blue cup")},
		{goal: "Put the apple on the table", cands: []string{"Apple_1", "DiningTable", "CoffeeTable"}, options: asks("DiningTable", "CoffeeTable")},
		{goal: "put the Peppers away", cands: []string{"red peppers", "green peppers"}, options: asks("red peppers", "green peppers")},
		{goal: "胡椒を使って", cands: []string{"黒胡椒", "白胡椒"}, options: asks("黒胡椒", "白胡椒"), text: "「胡椒」"},
		{goal: "use the pepper", cands: spices, answer: "banana", options: asks("black pepper", "bell pepper")},
		// Settled by the answer, or named whole.
		{goal: "use the pepper", cands: spices, answer: "bell"},
		{goal: "use the pepper", cands: spices, answer: "black pepper"},
		{goal: "use the black pepper", cands: spices},
		{goal: "use the Black Peppers", cands: spices},
		{goal: "use the pepper", cands: []string{"pepper", "black pepper"}},
		{goal: "黒胡椒を使って", cands: []string{"黒胡椒", "白胡椒"}},
		// One fits, none fits, or any will do.
		{goal: "use the oil", cands: spices},
		{goal: "use the salt", cands: spices},
		{goal: "grab a cup", cands: cups},
		{goal: "grab any cup", cands: cups},
		{goal: "wash the cups", cands: cups},
		{goal: "use the red pepper", cands: spices},
		{goal: "don't touch the cup", cands: cups},
		{goal: "pepper the steak", cands: spices},
		{goal: "Which cup is cleaner?", cands: cups},
		{goal: "use the pepper"},
		// A universal quantifier: all of them.
		{goal: "wipe every cup", cands: cups},
		{goal: "rinse each cup on the rack", cands: cups},
		{goal: "pour all the pepper into the pot", cands: spices},
		{goal: "put all of the pepper away", cands: spices},
		{goal: "dry both cups", cands: cups},
		{goal: "コップを全部洗って", cands: []string{"赤いコップ", "青いコップ"}},
		{goal: "すべてのコップを棚に戻して", cands: []string{"赤いコップ", "青いコップ", "棚"}},
		{goal: "rinse every cup, then use the pepper", cands: append(cups, spices...), options: asks("black pepper", "bell pepper")},
		{goal: "summarise every file", files: []string{"a.md", "docs/b.md"}},
		// Files: TARGET_FILE.
		{goal: "summarise the file", files: []string{"a.md", "docs/b.md"}, options: asks("a.md", "docs/b.md"), text: "“the file”"},
		{goal: "update the readme", files: []string{"README.md", "docs/README.md", "go.mod"}, options: asks("README.md", "docs/README.md")},
		{goal: "このファイルを要約して", files: []string{"a.md", "b.md"}, options: asks("a.md", "b.md"), text: "どのファイル"},
		{goal: "summarise the file", files: []string{"a.md"}},
		{goal: "open b.md and summarise the file", files: []string{"a.md", "docs/b.md"}},
		{goal: "summarise the file", answer: "docs/b.md", files: []string{"a.md", "docs/b.md"}},
		{goal: "write a file listing the tests", files: []string{"a.md", "b.md"}},
		{goal: "summarise the file"},
	})
}

// A bare noun the goal's own words settle is no question: an attribute
// its phrase states ("the glass oven-safe dish"), a quantifier past a
// measure ("both kinds of bread"), or the thing it is part of ("the
// juice from the canned peaches"), in any of its forms ("the peaches from
// the can": canned). A multi-word candidate's head is a
// mention even when the words are an idiom ("ice cream").
func TestCandidatesAskOnlyWhenTheGoalsWordsLeaveTwoOpen(t *testing.T) {
	t.Parallel()
	dishes := []string{"glass baking dish", "metal baking dish", "oven"}
	fridge := []string{"canned peaches", "orange juice", "apple juice", "oat milk", "whole milk", "fridge"}
	runDetector(t, func(in *input) *asked { r := detectCandidates(in); return &r.asked }, []detectorCase{
		{goal: "put the glass oven-safe dish in the oven", cands: dishes},
		{goal: "put the oven-safe glass baking dish in the oven", cands: dishes},
		{goal: "put the baking dish in the oven", cands: dishes, options: asks("glass baking dish", "metal baking dish")},
		{goal: "slice both kinds of bread", cands: []string{"rye bread", "white bread"}},
		{goal: "toast all types of bread", cands: []string{"rye bread", "white bread"}},
		{goal: "drain the juice from the canned peaches", cands: fridge},
		{goal: "squeeze the juice of a lemon", cands: fridge},
		{goal: "take the milk from the fridge", cands: fridge, options: asks("oat milk", "whole milk")},
		{goal: "pour the juice into a glass", cands: fridge, options: asks("orange juice", "apple juice")},
		{goal: "scoop the ice cream into the bowl", cands: []string{"mint ice cream", "coffee ice cream", "bowl"}, options: asks("mint ice cream", "coffee ice cream")},
		{goal: "scoop the mint ice cream into the bowl", cands: []string{"mint ice cream", "coffee ice cream", "bowl"}},
		{goal: "pour the juice from the can of pineapple into a cup", cands: fridge},
		{goal: "cut it with the knife for the bread", cands: []string{"bread knife", "paring knife"}},
		{goal: "bring the mug that is blue", cands: []string{"red mug", "blue mug"}},
		{goal: "pour the milk that is in the carton", cands: []string{"carton milk", "bottle milk"}},
		{goal: "put the mug, which is dirty, in the sink", cands: []string{"dirty mug", "clean mug", "sink"}},
		{goal: "ガラスの皿にラザニアを入れて", cands: []string{"ガラス皿", "金属皿", "ラザニア"}},
		{goal: "皿にラザニアを入れて", cands: []string{"ガラス皿", "金属皿", "ラザニア"}, options: asks("ガラス皿", "金属皿")},
		{goal: "rinse the red mug, then dry the other mug", cands: []string{"red mug", "blue mug"}},
		{goal: "dry the other mug", cands: []string{"red mug", "blue mug"}, options: asks("red mug", "blue mug")},
		// A word the goal states in another form of a candidate's word
		// ("can" and "canned", "larger" and "large", "wood" and
		// "wooden"), and a container named with "of" ("the can of peaches").
		{goal: "use the peaches from the can", cands: []string{"canned peaches", "fresh peaches"}},
		{goal: "open the can of peaches and drain them", cands: []string{"canned peaches", "fresh peaches"}},
		{goal: "open the peaches", cands: []string{"canned peaches", "fresh peaches"}, options: asks("canned peaches", "fresh peaches")},
		{goal: "boil the water in the larger pot", cands: []string{"large pot", "small pot"}},
		{goal: "stir it with the wood spoon", cands: []string{"wooden spoon", "metal spoon"}},
		{goal: "add a cup of rice to the pot", cands: []string{"white rice", "brown rice", "pot"}, options: asks("white rice", "brown rice")},
		// Where a preposition's object is, stated after it ("on the table
		// in the dining room"), but not where a thing is put or a verb's
		// particle ("turn on the lamp on the desk").
		{goal: "put the mug on the table in the dining room", cands: []string{"DiningTable", "SideTable", "Mug"}},
		{goal: "put the lamp on the desk", cands: []string{"DeskLamp", "FloorLamp", "Desk"}, options: asks("DeskLamp", "FloorLamp")},
		{goal: "turn on the lamp on the desk", cands: []string{"DeskLamp", "FloorLamp", "Desk"}, options: asks("DeskLamp", "FloorLamp")},
		// A candidate the goal rules out, and one it names right after
		// the bare noun, set off by a comma or a bracket.
		{goal: "use the pan, not the nonstick one", cands: []string{"nonstick pan", "cast iron pan"}},
		{goal: "don't use the whole milk; heat the milk", cands: []string{"oat milk", "whole milk"}},
		{goal: "heat the milk, the oat one", cands: []string{"oat milk", "whole milk"}},
		{goal: "heat the milk (the oat milk)", cands: []string{"oat milk", "whole milk"}},
		{goal: "wash the mug, the plate and the bowl", cands: []string{"red mug", "blue mug", "plate", "bowl"}, options: asks("red mug", "blue mug")},
		{goal: "put the mug in the sink, the red one", cands: []string{"red mug", "blue mug", "sink"}},
		{goal: "put the dish (glass) in the oven", cands: dishes},
		{goal: "pour the juice: the orange one", cands: fridge},
		{goal: "put the dish (large) in the oven", cands: dishes, options: asks("glass baking dish", "metal baking dish")},
		{goal: "put the mug on the tray, carefully", cands: []string{"red mug", "blue mug", "tray"}, options: asks("red mug", "blue mug")},
		// An owner, a relative clause with its own verb, a position, and a
		// pro-form's modifier ("the glass one" is no glass).
		{goal: "fill Tom's mug with coffee", cands: []string{"Tom's mug", "Ana's mug"}},
		{goal: "put the book in the backpack that belongs to Leo", cands: []string{"Mia's backpack", "Leo's backpack", "book"}},
		{goal: "wash the mug that Tom gave me", cands: []string{"red mug", "blue mug"}, options: asks("red mug", "blue mug")},
		{goal: "hand me the slipper on the left", cands: []string{"left slipper", "right slipper"}},
		{goal: "put the slipper on the red mat", cands: []string{"left slipper", "right slipper", "red mug"}, options: asks("left slipper", "right slipper")},
		{goal: "spread the butter without salt", cands: []string{"salted butter", "unsalted butter"}},
		{goal: "bring the mug that is not blue", cands: []string{"red mug", "blue mug"}},
		{goal: "bring the mug that is not green", cands: []string{"red mug", "blue mug", "green mug"}, options: asks("red mug", "blue mug")},
		{goal: "put the metal dish in the sink and the glass one in the oven", cands: []string{"metal baking dish", "glass baking dish", "wine glass", "water glass", "sink", "oven"}},
		// A word that says which one it is belongs to that reference, not a
		// mention of its own ("the knife for bread": no bread is meant).
		{goal: "use the knife for bread to slice the loaf", cands: []string{"bread knife", "paring knife", "rye bread", "white bread"}},
		{goal: "cut the bread with the bread knife", cands: []string{"bread knife", "paring knife", "rye bread", "white bread"}, options: asks("rye bread", "white bread")},
		// A candidate named in full later in the same sentence, when it is
		// the only one of them named there; not in another sentence.
		{goal: "put the juice back in the fridge after you pour a glass of orange juice", cands: fridge},
		{goal: "pour the juice. Then put away the orange juice", cands: fridge, options: asks("orange juice", "apple juice")},
		{goal: "pour the juice after the orange juice and the apple juice are cold", cands: fridge, options: asks("orange juice", "apple juice")},
	})
}

func lower(s string) string {
	toks := tokenize(s)
	if len(toks) == 0 {
		return ""
	}
	return toks[0].Text
}

// The head index of a nameSet finds, for every goal word, the names
// headMatch fits, in the candidates' order: the index and the scan over
// every name agree (English heads, identifiers, one-letter labels,
// Japanese heads and the ends of them).
func TestNameSetHeadedIsHeadMatchOverEveryName(t *testing.T) {
	cands := []string{"black pepper", "bell pepper", "white t-shirt", "staging-eu", "us-east-cluster", "vitamin D",
		"Plan A", "黒胡椒", "白胡椒", "ブラックペッパー", "mint ice cream", "coffee ice cream", "pepper", "black pepper"}
	ns := newNameSet(cands)
	keys := []string{"pepper", "t-shirt", "shirt", "staging", "eu", "cluster", "us", "vitamin", "plan", "胡椒", "ペッパー",
		"黒胡椒", "cream", "ice", "mint", "black", "nothing", "ー"}
	for _, n := range ns.names {
		keys = append(keys, n.heads...)
	}
	for _, key := range keys {
		var want []string
		for _, n := range ns.names {
			if headMatch(key, n) {
				want = append(want, n.display)
			}
		}
		var got []string
		for _, n := range ns.headed(key) {
			got = append(got, n.display)
		}
		if !slices.Equal(got, want) {
			t.Errorf("headed(%q) = %q, headMatch over every name %q", key, got, want)
		}
	}
}
