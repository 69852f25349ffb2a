package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFile writes text to a new file in a temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// askonce run sends --candidate and --candidates-file (blank lines and #
// comments skipped) as the job's candidates, in that order; jobs show
// lists the first few with their count, hostile text made visible, and
// repl sends them with every goal.
func runCandidatesReachTheJobAndJobsShowListsThem(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	fileNames := []string{"bell pepper", "evil\u202etxt.exe", "黒胡椒"}
	for i := range 8 {
		fileNames = append(fileNames, fmt.Sprintf("table %d", i))
	}
	file := writeFile(t, "names.txt", "# the kitchen\n\n  bell pepper  \r\n"+strings.Join(fileNames[1:], "\n")+"\n")
	out, errs, code := runCLI(t, "", noServer, "run", "--no-input", "--json", "--db", db,
		"--candidate", "black pepper", "--candidates-file", file, "write the README then add tests")
	want(t, "run", out, errs, code, 0)
	var j struct {
		JobID      string   `json:"jobId"`
		Candidates []string `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	wantNames := append([]string{"black pepper"}, fileNames...)
	if !slices.Equal(j.Candidates, wantNames) {
		t.Fatalf("the job's candidates %q, want %q", j.Candidates, wantNames)
	}

	out, errs, code = runCLI(t, "", noServer, "jobs", "show", "--db", db, j.JobID)
	want(t, "jobs show", out, errs, code, 0, "Candidates", "black pepper, bell pepper, evil\\u202etxt.exe, 黒胡椒, table 0", "table 3, … (12 in all)")
	if strings.Contains(out, "\u202e") || strings.Contains(out, "table 4") {
		t.Errorf("jobs show wrote the bidi override raw, or more than 8 names:\n%s", out)
	}

	out, errs, code = runCLI(t, "write the README then add tests\n", noServer, "repl", "--db", db, "--candidate", "staging", "--candidate", "production")
	want(t, "repl", out, errs, code, 0)
	out, errs, code = runCLI(t, "", noServer, "jobs", "list", "--json", "--db", db)
	want(t, "jobs list", out, errs, code, 0)
	var l struct {
		Jobs []struct {
			JobID      string   `json:"jobId"`
			Candidates []string `json:"candidates"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Jobs) != 2 {
		t.Fatalf("jobs list --json: %v\n%s", err, out)
	}
	if l.Jobs[0].JobID == j.JobID || !slices.Equal(l.Jobs[0].Candidates, []string{"staging", "production"}) {
		t.Errorf("the repl's job: %+v, want candidates staging, production", l.Jobs[0])
	}
}

// A bad name in --candidates-file is a usage error (exit 2) naming the
// file and the line, as is a bad --candidate or one name too many; no job
// is created, nor the database.
func runBadCandidatesAreAUsageErrorNamingTheLine(t *testing.T) {
	t.Parallel()
	tooMany := strings.Repeat("table\n", 1000)
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ControlCharacter", []string{"--candidates-file", writeFile(t, "a.txt", "black pepper\n# c\n\nbell\tpepper\n")},
			"a.txt: line 4: the name holds a control character"},
		{"TooLong", []string{"--candidates-file", writeFile(t, "b.txt", "ok\n"+strings.Repeat("x", 257)+"\n")},
			"b.txt: line 2: the name is 257 bytes; the limit is 256"},
		{"NotUTF8", []string{"--candidates-file", writeFile(t, "c.txt", "ok\n\xff\n")}, "c.txt: line 2: the name is not valid UTF-8"},
		{"TooManyWithTheFlag", []string{"--candidate", "chair", "--candidates-file", writeFile(t, "d.txt", tooMany)},
			"d.txt: line 1000: more than 1000 names in all"},
		{"NoSuchFile", []string{"--candidates-file", filepath.Join(t.TempDir(), "none.txt")}, "none.txt: no such file or directory"},
		{"BlankFlag", []string{"--candidate", " "}, `--candidate " ": the name is empty`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "a.db")
			for _, cmd := range []string{"run", "repl"} {
				args := append([]string{cmd, "--no-input", "--db", db}, c.args...)
				if cmd == "repl" {
					args = append([]string{cmd, "--db", db}, c.args...)
				} else {
					args = append(args, "write the README")
				}
				out, errs, code := runCLI(t, "write the README\n", noServer, args...)
				want(t, cmd, out, errs, code, 2, c.msg)
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("%s created the database: %v", cmd, err)
				}
			}
		})
	}
	out, errs, code := runCLI(t, "", nil, "run", "--help")
	want(t, "run --help", out, errs, code, 0, "--candidate NAME  (repeatable)", "--candidates-file  (ASKONCE_CANDIDATES_FILE", "one a line")
}
