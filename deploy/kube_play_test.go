package deploy_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// podman is the container engine, with the flags this kind of machine
// needs (no systemd, no cgroup v2 delegation), as in cmd/askonce's
// container test.
var podman = []string{"podman", "--runtime", "/usr/sbin/runc", "--cgroup-manager=cgroupfs"}

// The chart's Deployment, played by podman kube play against the local
// PostgreSQL: both replicas become ready and share one database (a job
// created on one is answered on the other).
//
// What differs from a cluster, and why: the pods use the host's network
// (PostgreSQL listens on loopback only), so the Deployment's containerPort
// and the probes that name it are dropped (podman refuses port mappings
// on the host network) and each replica listens on a free loopback port
// (ASKONCE_ADDR=127.0.0.1:0), which its log names; the test checks the
// probes' paths itself (/healthz for ready, /livez for alive), since
// podman here has no systemd to run them. Podman reads a Secret as a
// podman secret holding {"key": base64}. Everything else (the image, the
// two replicas, the ConfigMap, the secret reference, the user, the
// read-only root, the /tmp volume) is the rendered chart.
func TestKubePlayRunsTwoReadyReplicasOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping podman kube play (it builds an image and runs two pods; CI runs it)")
	}
	ci := os.Getenv("CI") != ""
	if _, err := exec.LookPath("podman"); err != nil {
		if ci {
			t.Fatal("podman is not installed: .ci/run installs it (CI never skips)")
		}
		t.Skip("skipping: podman is not installed (apt-get install podman runc; .ci/run does)")
	}
	pg := os.Getenv("ASKONCE_TEST_POSTGRES")
	if pg == "" {
		if ci {
			t.Fatal("ASKONCE_TEST_POSTGRES is not set: .ci/run sets it (CI never skips)")
		}
		t.Skip("skipping: set ASKONCE_TEST_POSTGRES to a PostgreSQL URL (docs/deploy.md)")
	}
	var b [5]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	release := "askonce-kube-" + id

	// A database of its own.
	dbName := "askonce_kube_" + id
	psql(t, pg, "CREATE DATABASE "+dbName)
	t.Cleanup(func() { psql(t, pg, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)") })
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + dbName

	// The image, from the binary as cmd/askonce's container test builds it.
	tag := "localhost/" + release + ":test"
	build := exec.Command("scripts/container.sh", "-b", askonceBinary(t), "-v", "kube-test", "-t", tag, "-a", "amd64")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CONTAINER_ENGINE="+strings.Join(podman, " "))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/container.sh: %v\n%s", err, out)
	}
	t.Cleanup(func() { pod(t, "rmi", "-f", tag) })

	// The database Secret, as podman reads one.
	secret := release + "-db"
	sf := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(sf, []byte(`{"url":"`+base64.StdEncoding.EncodeToString([]byte(u.String()))+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pod(t, "secret", "create", secret, sf)
	t.Cleanup(func() { pod(t, "secret", "rm", secret) })

	o := decode(t, renderAs(t, release, "", map[string]any{
		"publicURL": "http://127.0.0.1:8080",
		"image":     map[string]any{"repository": "localhost/" + release, "tag": "test", "pullPolicy": "Never"},
		"database":  map[string]any{"secretName": secret},
	}))
	o.config.Data["ASKONCE_ADDR"] = "127.0.0.1:0"
	c := &o.deployment.Spec.Template.Spec.Containers[0]
	c.Ports, c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = nil, nil, nil, nil
	var play bytes.Buffer
	for _, obj := range []any{o.config, o.deployment} {
		y, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		play.WriteString("---\n")
		play.Write(y)
	}
	pf := filepath.Join(t.TempDir(), "play.yaml")
	if err := os.WriteFile(pf, play.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// kube play starts the pods whether or not the host's systemd can run
	// health checks (it logs that it cannot), so its exit is not checked
	// alone: the pods are.
	out, playErr := exec.Command(podman[0], append(podman[1:], "kube", "play", "--network", "host", pf)...).CombinedOutput()
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range pods(t, release) {
				logs, _ := exec.Command(podman[0], append(podman[1:], "logs", p+"-askonce")...).CombinedOutput()
				t.Logf("log of %s:\n%s", p, logs)
			}
		}
		exec.Command(podman[0], append(podman[1:], "kube", "down", pf)...).Run()
	})
	names := pods(t, release)
	if len(names) != 2 {
		t.Fatalf("podman kube play made pods %v, want two replicas (play: %v)\n%s", names, playErr, out)
	}

	var bases []string
	for _, p := range names {
		ctr := p + "-askonce"
		// The pod runs as the chart says: not root, on a read-only root.
		if got := strings.TrimSpace(pod(t, "inspect", ctr, "--format", "{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}")); got != "65532:65532 true" && got != "65532 true" {
			t.Errorf("%s runs as user, read-only root %q; want 65532 and true", ctr, got)
		}
		bases = append(bases, "http://"+servingAddr(t, ctr))
	}
	for _, base := range bases {
		wait(t, base+"/healthz 200: ready, the database answers", func() bool { return get(base+"/healthz") == http.StatusOK })
		if s := get(base + "/livez"); s != http.StatusOK {
			t.Errorf("%s/livez: %d", base, s)
		}
	}

	// A round trip across the replicas: created on one, answered on the
	// other, read back on the first.
	var job struct {
		JobID  string `json:"jobId"`
		Status string `json:"status"`
	}
	call(t, "POST", bases[0]+"/jobs", `{"goal":"hot frozen cheese"}`, http.StatusCreated, &job)
	if job.Status != "pending" {
		t.Fatalf("created on %s: %+v, want pending", bases[0], job)
	}
	call(t, "POST", bases[1]+"/jobs/"+job.JobID+"/clarification", `{"answer":"hot"}`, http.StatusOK, &job)
	call(t, "GET", bases[0]+"/jobs/"+job.JobID, "", http.StatusOK, &job)
	if job.Status != "success" {
		t.Errorf("read back on %s: %+v, want success", bases[0], job)
	}
}

// askonceBinary is the static linux/amd64 binary CI built, or one built
// here.
func askonceBinary(t *testing.T) string {
	t.Helper()
	if dir, v := os.Getenv("ASKONCE_TEST_RELEASE_DIR"), os.Getenv("ASKONCE_TEST_RELEASE_VERSION"); dir != "" && v != "" {
		return filepath.Join(dir, fmt.Sprintf("askonce_%s_linux_amd64", v))
	}
	path := filepath.Join(t.TempDir(), "askonce")
	build := exec.Command("go", "build", "-o", path, "./cmd/askonce")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build askonce: %v\n%s", err, out)
	}
	return path
}

var servingLine = regexp.MustCompile(`"msg":"askonce serving","addr":"([0-9.]+:[0-9]+)"`)

// servingAddr waits for ctr's "askonce serving" log line and returns the
// address it names.
func servingAddr(t *testing.T, ctr string) string {
	t.Helper()
	var addr string
	wait(t, ctr+" to log the address it serves", func() bool {
		out, _ := exec.Command(podman[0], append(podman[1:], "logs", ctr)...).CombinedOutput()
		if m := servingLine.FindSubmatch(out); m != nil {
			addr = string(m[1])
			return true
		}
		return false
	})
	return addr
}

func pods(t *testing.T, release string) []string {
	out, err := exec.Command(podman[0], append(podman[1:], "pod", "ps", "--filter", "name="+release+"-pod", "--format", "{{.Name}}")...).Output()
	if err != nil {
		t.Errorf("podman pod ps: %v", err)
	}
	return strings.Fields(string(out))
}

func pod(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(podman[0], append(podman[1:], args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func psql(t *testing.T, pg, sql string) {
	t.Helper()
	if out, err := exec.Command("psql", pg, "-v", "ON_ERROR_STOP=1", "-qc", sql).CombinedOutput(); err != nil {
		t.Fatalf("psql %s: %v\n%s", sql, err, out)
	}
}

func get(u string) int {
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func call(t *testing.T, method, u, body string, want int, into any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(resp.Body).Decode(&raw)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, u, resp.StatusCode, raw, want)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
}

// wait polls cond until it holds, failing after two minutes (the first
// start migrates the database, one replica after the other).
func wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
