package clients_test

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The TypeScript client as a newcomer meets it: the tarball npm pack
// makes (the release's), installed into an empty project, does a round
// trip against askonce serve; and every TypeScript snippet of its README
// and of docs/integrations.md compiles there with the README's own
// commands (npm install, npx tsc, node), against the installed package,
// and runs against the same server, on Node 20 and on Node 22.
func TestTypeScriptClient_TarballInAnEmptyProject(t *testing.T) {
	t.Parallel()
	// npm ci there puts typescript and @types/node in npm's cache.
	require(t, "npm", filepath.Join("typescript", "node_modules", "@types", "node"))
	dir := t.TempDir()
	run(t, "typescript", 2*time.Minute, "npm", "pack", "--silent", "--pack-destination", dir)
	tarballs, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil || len(tarballs) != 1 {
		t.Fatalf("npm pack made %v (%v), want one tarball", tarballs, err)
	}
	project := filepath.Join(dir, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	// openapi-fetch comes from npm's cache when it is there (npm ci in
	// clients/typescript put it there), else from the registry.
	run(t, project, 3*time.Minute, "npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarballs[0])
	installed := filepath.Join(project, "node_modules", "@askonce", "client")
	if fi, err := os.Lstat(installed); err != nil || !fi.IsDir() {
		t.Fatalf("%s is not an installed folder (a link would break the import): %v", installed, err)
	}
	base := serve(t)

	write(t, filepath.Join(project, "roundtrip.mjs"), `import { Askonce } from "@askonce/client";
const c = new Askonce({ baseUrl: process.env.ASKONCE_URL });
let job = await c.createJob({ goal: "hot frozen cheese" });
if (!job.needsClarification) throw new Error("no question: " + JSON.stringify(job));
job = await c.answer(job.jobId, "hot");
console.log(JSON.stringify({ status: job.status, temperature: job.plan.spec.attributes.temperature, dispatch: job.dispatchStatus }));
`)
	out := node(t, project, base, "roundtrip.mjs")
	// serve's default --builder none: nothing delivers the plan, and the
	// job says so instead of a queued that never moves.
	if got := strings.TrimSpace(out); got != `{"status":"success","temperature":"hot","dispatch":"none"}` {
		t.Errorf("the round trip printed %s, want a successful hot plan that no builder takes", got)
	}

	t.Run("SnippetsCompileAndRunWithTheREADMEsCommands", func(t *testing.T) {
		readme := filepath.Join("typescript", "README.md")
		install, compile, runLine := readmeCommands(t, readme)
		var names []string
		for _, doc := range []string{readme, filepath.Join("..", "docs", "integrations.md")} {
			for i, src := range tsBlocks(t, doc) {
				name := strings.NewReplacer(string(filepath.Separator), "_", ".", "_").Replace(strings.TrimPrefix(doc, ".."+string(filepath.Separator)))
				name = name + "_" + string(rune('a'+i))
				write(t, filepath.Join(project, name+".mts"), src)
				names = append(names, name)
			}
		}
		if len(names) < 4 {
			t.Fatalf("found %d ```ts blocks, want the README's and docs/integrations.md's", len(names))
		}
		// The README's install line as written; npm takes the packages
		// from its cache when npm ci in clients/typescript put them there.
		shell(t, project, "", base, install)
		for _, major := range []string{"20", "22"} {
			t.Run("Node"+major, func(t *testing.T) {
				dir := nodeDir(t, major)
				// A server of its own: the snippets remember answers.
				base := serve(t)
				version := shell(t, project, dir, base, "node --version")
				if want := "v" + major + "."; !strings.HasPrefix(version, want) {
					t.Fatalf("node --version is %s, want %s*", version, want)
				}
				for _, name := range names {
					shell(t, project, dir, base, strings.ReplaceAll(compile, "example.mts", name+".mts"))
					out := shell(t, project, dir, base, strings.ReplaceAll(runLine, "example.mjs", name+".mjs"))
					t.Logf("%s on %s:\n%s", name, version, out)
				}
			})
		}
	})
}

// readmeCommands returns the three lines of the README's sh block that
// compiles and runs an example: the npm install, the tsc and the node
// line, as a reader copies them.
func readmeCommands(t *testing.T, readme string) (install, compile, run string) {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		lines := strings.Split(strings.TrimSpace(m[1]), "\n")
		if len(lines) == 3 && strings.HasPrefix(lines[1], "npx tsc ") {
			if !strings.HasPrefix(lines[0], "npm install ") || !strings.HasSuffix(lines[1], " example.mts") || lines[2] != "node example.mjs" {
				t.Fatalf("%s: the compile-and-run block is not npm install, npx tsc ... example.mts, node example.mjs:\n%s", readme, m[1])
			}
			return lines[0], lines[1], lines[2]
		}
	}
	t.Fatalf("%s has no sh block that compiles an example with npx tsc and runs it with node", readme)
	return
}

// nodeDir is the folder of the Node binary of that major version that npm
// ci in clients/node installs (node20, node22); the test skips when it is
// missing, except in CI.
func nodeDir(t *testing.T, major string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("node", "node_modules", "node"+major, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Node %s is missing (%v): .ci/run installs it with npm ci in clients/node", major, err)
		}
		t.Skipf("skipping: Node %s is not installed (npm ci in clients/node; CI installs it and never skips)", major)
	}
	return dir
}

// shell runs line with bash in dir, with nodeDir (when set) first on PATH
// and ASKONCE_URL set to base, and returns its output.
func shell(t *testing.T, dir, nodeDir, base, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	path := os.Getenv("PATH")
	if nodeDir != "" {
		path = nodeDir + string(os.PathListSeparator) + path
	}
	cmd.Env = append(os.Environ(), "PATH="+path, "ASKONCE_URL="+base,
		"npm_config_prefer_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_loglevel=error")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return strings.TrimSpace(string(out))
}

// tsBlocks returns the ```ts blocks of a Markdown file.
func tsBlocks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```ts\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// node runs a script of the project with ASKONCE_URL set to base.
func node(t *testing.T, dir, base, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASKONCE_URL="+base) // the last one wins
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// serve starts askonce serve on a free port with a database in a
// temporary folder, waits until /healthz answers, and returns its URL; the
// server stops when the test ends.
func serve(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "askonce.db"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var mu sync.Mutex
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`127\.0\.0\.1:[1-9][0-9]*`)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if a := re.FindString(sc.Text()); a != "" {
				select {
				case addr <- a:
				default:
				}
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	logText := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-exited:
		t.Fatalf("askonce serve exited: %v\n%s", err, logText())
	case <-time.After(30 * time.Second):
		t.Fatalf("askonce serve did not report its address:\n%s", logText())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("askonce serve at %s did not become healthy: %v\n%s", base, err, logText())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
