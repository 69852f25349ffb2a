package rules

import (
	"bytes"
	"fmt"
)

// vocab is the rules interpreter's one vocabulary: closed.json holds the
// closed classes (grammar words that do not grow), open.json the open
// lists (verbs, objects, idioms, measures, ...). Both are embedded and
// read once; detectors hold no word lists of their own.
var vocab = loadVocab()

type vocabulary struct {
	lists map[string][]string
	sets  map[string]map[string]bool
}

// has reports whether w is in the named list.
func (v *vocabulary) has(list, w string) bool { return v.sets[list][w] }

// loadVocab reads the embedded files; a bad one panics at start-up, and
// every test run loads them.
func loadVocab() *vocabulary {
	v := &vocabulary{lists: map[string][]string{}, sets: map[string]map[string]bool{}}
	for _, file := range []string{"closed.json", "open.json"} {
		b, err := embedded.ReadFile(file)
		if err != nil {
			panic(fmt.Errorf("rules: %w", err))
		}
		var w struct {
			Description string              `json:"description"`
			Lists       map[string][]string `json:"lists"`
		}
		if err := decodeStrict(bytes.NewReader(b), &w); err != nil {
			panic(fmt.Errorf("rules: %s: %w", file, err))
		}
		for name, words := range w.Lists {
			if _, dup := v.lists[name]; dup {
				panic(fmt.Errorf("rules: list %q is in both vocabulary files", name))
			}
			v.lists[name] = words
			v.sets[name] = make(map[string]bool, len(words))
			for _, x := range words {
				v.sets[name][x] = true
			}
		}
	}
	for name := range listFlags {
		if _, ok := v.lists[name]; !ok {
			panic(fmt.Errorf("rules: the vocabulary has no list %q", name))
		}
	}
	return v
}
