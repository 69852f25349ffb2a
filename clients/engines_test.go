package clients_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// Each Node example's README says the Node version its locked packages
// ask for (the highest "engines.node" minimum of package-lock.json), so
// that npm's EBADENGINE warning is no surprise: "Node 22 or later".
func TestNodeExamplesReadmesStateTheNodeTheirPackagesNeed(t *testing.T) {
	t.Parallel()
	locks, err := filepath.Glob(filepath.Join("..", "examples", "*", "package-lock.json"))
	if err != nil || len(locks) == 0 {
		t.Fatalf("no examples' package-lock.json (%v)", err)
	}
	minimum := regexp.MustCompile(`>=\s*v?(\d+)`)
	for _, lock := range locks {
		b, err := os.ReadFile(lock)
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Packages map[string]struct {
				Engines json.RawMessage `json:"engines"`
			} `json:"packages"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("%s: %v", lock, err)
		}
		need, by := 0, ""
		for name, p := range l.Packages {
			var e struct{ Node string }
			if json.Unmarshal(p.Engines, &e) != nil {
				continue // engines as an array: old packages, no Node of note
			}
			if m := minimum.FindStringSubmatch(e.Node); m != nil {
				if n, _ := strconv.Atoi(m[1]); n > need {
					need, by = n, name
				}
			}
		}
		if need <= 20 {
			continue // the clients' own floor, which the top README states
		}
		readme, err := os.ReadFile(filepath.Join(filepath.Dir(lock), "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`Node ` + strconv.Itoa(need) + `\b`).Match(readme) {
			t.Errorf("%s: %s needs Node %d, which its README does not say", filepath.Dir(lock), by, need)
		}
	}
}
