package cli

import (
	"fmt"
	"strings"
)

// DidYouMean is the sentence suggesting the names closest to a mistyped
// one, or "" when none is close: at most two edits away (and fewer edits
// than the typed name has letters), or a name the typed one starts.
func DidYouMean(typed string, names []string) string {
	best, bestD := []string{}, 3
	for _, n := range names {
		d := editDistance(typed, n)
		if d >= len([]rune(typed)) && !strings.HasPrefix(n, typed) {
			continue
		}
		if strings.HasPrefix(n, typed) && len(typed) >= 2 {
			d = min(d, 1)
		}
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD:
			best = append(best, n)
		}
	}
	if len(best) == 0 {
		return ""
	}
	return fmt.Sprintf("did you mean %s?", strings.Join(best, " or "))
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
