package main_test

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// podman is the container engine of the container test, with the flags
// this kind of machine needs (no systemd, no cgroup v2 delegation).
var podman = []string{"podman", "--runtime", "/usr/sbin/runc", "--cgroup-manager=cgroupfs"}

// TestContainer: the container image and the compose file.
func TestContainer(t *testing.T) {
	t.Parallel()
	t.Run("ComposeReplicasShareOnePostgres", containerComposeReplicasShareOnePostgres)
	t.Run("ImageServesHealthzAsANonRootUser", containerImageServesHealthzAsANonRootUser)
}

// The image scripts/container.sh builds from the Containerfile: it runs
// as 65532 with /data as its volume, serves /healthz 200 with the version
// of the binary inside, stores jobs in /data, and its own HEALTHCHECK
// passes. Outside CI the test skips when Podman is missing; in CI (CI
// set) that fails: .ci/run installs it.
func containerImageServesHealthzAsANonRootUser(t *testing.T) {
	requirePodman(t)
	t.Parallel()
	tag, version := buildImage(t)
	name := strings.TrimPrefix(strings.Split(tag, ":")[0], "localhost/")

	var cfg []struct {
		// Podman shows a Docker-format image's health check here,
		// Docker under Config.
		HealthCheck *struct{ Test []string }
		Config      struct {
			User         string
			ExposedPorts map[string]any
			Volumes      map[string]any
			Cmd          []string
			Healthcheck  *struct{ Test []string }
		}
	}
	if err := json.Unmarshal([]byte(pod(t, "image", "inspect", tag)), &cfg); err != nil || len(cfg) != 1 {
		t.Fatalf("image inspect: %v", err)
	}
	c := cfg[0].Config
	if c.User != "65532:65532" || c.ExposedPorts["8080/tcp"] == nil || c.Volumes["/data"] == nil {
		t.Errorf("image config: user %q, ports %v, volumes %v; want 65532:65532, 8080/tcp, /data", c.User, c.ExposedPorts, c.Volumes)
	}
	if want := "serve --db /data/askonce.db"; strings.Join(c.Cmd, " ") != want {
		t.Errorf("image command %q, want %q", c.Cmd, want)
	}
	hc := cmp.Or(cfg[0].HealthCheck, c.Healthcheck)
	if hc == nil || !strings.Contains(strings.Join(hc.Test, " "), "/askonce health") {
		t.Errorf("image health check %+v, want askonce health", hc)
	}

	// Host networking on a free port, moved by ASKONCE_ADDR alone for
	// serve and the image's health check (so the port is picked before
	// the start rather than by --addr 127.0.0.1:0). The health check
	// runs on demand below, not from a systemd timer this machine lacks.
	// ASKONCE_ADDR on every interface, as the image's own default is: the
	// start-up log names it as given (0.0.0.0:PORT, not Go's [::]:PORT).
	_, port, _ := net.SplitHostPort(closedPort(t))
	addr := "127.0.0.1:" + port
	runContainer(t, name, "-e", "ASKONCE_ADDR=0.0.0.0:"+port, tag)
	if health := waitHealthy(t, "http://"+addr); !health.OK || health.Version != version {
		t.Errorf("/healthz %+v, want ok and version %s", health, version)
	}
	logs, err := exec.Command(podman[0], append(podman[1:], "logs", name)...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman logs: %v\n%s", err, logs)
	}
	if want := `msg="askonce serving" addr=0.0.0.0:` + port + " "; !strings.Contains(string(logs), want) {
		t.Errorf("the container's start-up log does not say %s:\n%s", want, logs)
	}
	// A job is stored in the volume: /data is writable by the user.
	resp, err := http.Post("http://"+addr+"/jobs", "application/json", strings.NewReader(`{"goal":"write the README"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("POST /jobs in the container: %s", resp.Status)
	}
	// The image's own health check: exit 0 is healthy.
	pod(t, "healthcheck", "run", name)
}

// podmanMu runs the container tests one at a time: two builds at once
// share podman's layer cache, and one test's rmi of its image can take
// away a layer the other build is using ("layer not known").
var podmanMu sync.Mutex

// requirePodman skips the test under -short, and when podman is missing
// except in CI.
func requirePodman(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a container test (it builds an image and runs it with podman; go test without -short runs it; CI does)")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("podman is not installed: .ci/run installs it (CI never skips)")
		}
		t.Skip("skipping: podman is not installed (apt-get install podman runc; .ci/run does)")
	}
}

// buildImage builds the image with scripts/container.sh under a tag of
// its own, removed when the test ends, and returns the tag and the
// version of the binary inside. It holds podmanMu from the build until
// the test and its cleanups (the image's removal last) are done; call it
// after t.Parallel.
func buildImage(t *testing.T) (tag, version string) {
	t.Helper()
	podmanMu.Lock()
	t.Cleanup(podmanMu.Unlock)
	bin, version := staticBinary(t)
	var b [6]byte
	rand.Read(b[:])
	tag = "localhost/askonce-test-" + hex.EncodeToString(b[:]) + ":" + version
	build := exec.Command("scripts/container.sh", "-b", bin, "-v", version, "-t", tag, "-a", "amd64")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CONTAINER_ENGINE="+strings.Join(podman, " "))
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/container.sh: %v\n%s", err, out)
	}
	// --platform sets TARGETOS, TARGETARCH and TARGETPLATFORM: the
	// Containerfile declares them, so the build has nothing to warn of.
	if strings.Contains(string(out), "not consumed") || strings.Contains(string(out), "[Warning]") {
		t.Errorf("scripts/container.sh warned:\n%s", out)
	}
	t.Cleanup(func() { pod(t, "rmi", "-f", tag) })
	return tag, version
}

// runContainer starts the image with host networking and removes it
// (and its anonymous volume) when the test ends, showing its log if the
// test failed.
func runContainer(t *testing.T, name string, args ...string) {
	t.Helper()
	pod(t, append([]string{"run", "-d", "--name", name, "--network", "host", "--health-interval", "disable"}, args...)...)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := exec.Command(podman[0], append(podman[1:], "logs", name)...).CombinedOutput()
			t.Logf("log of %s:\n%s", name, out)
		}
		pod(t, "rm", "-f", "-v", name)
	})
}

// waitHealthy waits for base's /healthz to answer 200 and returns it.
func waitHealthy(t *testing.T, base string) (health struct {
	OK      bool
	Version string
}) {
	t.Helper()
	within(t, time.Minute, base+"/healthz 200 from the container", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&health) == nil
	})
	return health
}

// staticBinary is the linux/amd64 release binary CI built, or else one
// built here the same way (CGO off, the version stamped), without
// -trimpath so that it shares the build cache.
func staticBinary(t *testing.T) (path, version string) {
	t.Helper()
	if dir, v := os.Getenv("ASKONCE_TEST_RELEASE_DIR"), os.Getenv("ASKONCE_TEST_RELEASE_VERSION"); dir != "" && v != "" {
		return releaseBinary(dir, v, "linux", "amd64"), v
	}
	path = filepath.Join(t.TempDir(), "askonce")
	build := exec.Command("go", "build", "-ldflags", "-s -w -X github.com/askonce/askonce/internal/buildinfo.Version="+stampedVersion, "-o", path, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}
	return path, stampedVersion
}

// pod runs podman and fails the test on error.
func pod(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(podman[0], append(podman[1:], args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}
