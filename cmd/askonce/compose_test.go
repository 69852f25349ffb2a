package main_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "github.com/oasdiff/yaml3"

	"github.com/askonce/askonce/postgres/pgtest"
)

// compose is the part of compose.yaml the test reads.
type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
	} `yaml:"services"`
}

// composeDefault replaces ${NAME:-default} with its default, as compose
// does when NAME is unset.
var composeDefault = regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`)

// compose.yaml's replica set-up, run with the image as compose would run
// it (its command and environment; the PostgreSQL of the tests instead of
// the postgres service, host networking and free ports): its database URL
// matches the postgres service, every replica answers /healthz, the
// answer links name the shared public URL, and a job created on one
// replica is read from the other.
func containerComposeReplicasShareOnePostgres(t *testing.T) {
	requirePodman(t)
	dsn := pgtest.Schema(t)
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	pg := c.Services["postgres"].Environment
	var replicas []string
	for name := range c.Services {
		if strings.HasPrefix(name, "askonce") {
			replicas = append(replicas, name)
		}
	}
	slices.Sort(replicas)
	if len(replicas) < 2 {
		t.Fatalf("compose.yaml has replicas %v, want two", replicas)
	}

	tag, _ := buildImage(t)
	var bases []string
	var publicURL string
	for _, name := range replicas {
		svc := c.Services[name]
		env := map[string]string{}
		for k, v := range svc.Environment {
			env[k] = composeDefault.ReplaceAllString(v, "$1")
		}
		db, err := url.Parse(env["ASKONCE_DB"])
		if err != nil || db.Host != "postgres:5432" || db.User.Username() != pg["POSTGRES_USER"] || db.Path != "/"+pg["POSTGRES_DB"] {
			t.Fatalf("%s: ASKONCE_DB %q does not name the postgres service's database (%v)", name, env["ASKONCE_DB"], pg)
		}
		if p, _ := db.User.Password(); p != pg["POSTGRES_PASSWORD"] {
			t.Fatalf("%s: ASKONCE_DB's password is not the postgres service's", name)
		}
		if publicURL == "" {
			publicURL = env["ASKONCE_PUBLIC_URL"]
		}
		if env["ASKONCE_PUBLIC_URL"] != publicURL || env["ASKONCE_REPLICA_ID"] == "" {
			t.Fatalf("%s: public URL %q (want every replica's the same, %q) and replica id %q", name, env["ASKONCE_PUBLIC_URL"], publicURL, env["ASKONCE_REPLICA_ID"])
		}
		env["ASKONCE_DB"] = dsn
		args := slices.Clone(svc.Command)
		if slices.Contains(args, "--addr") || slices.Contains(args, "--db") {
			t.Fatalf("%s: command %q: want no --addr (the image's ASKONCE_ADDR moves serve and its health check) and no --db (it would win over ASKONCE_DB)", name, args)
		}
		addr := closedPort(t)
		env["ASKONCE_ADDR"] = addr
		var run []string
		for k, v := range env {
			run = append(run, "-e", k+"="+v)
		}
		runContainer(t, strings.TrimPrefix(strings.Split(tag, ":")[0], "localhost/")+"-"+name, append(append(run, tag), args...)...)
		bases = append(bases, "http://"+addr)
	}
	for _, b := range bases {
		if h := waitHealthy(t, b); !h.OK {
			t.Fatalf("%s/healthz: %+v", b, h)
		}
	}

	resp, err := http.Post(bases[0]+"/jobs", "application/json", strings.NewReader(`{"goal":"hot frozen cheese"}`))
	if err != nil {
		t.Fatal(err)
	}
	var job struct{ JobID, Status, AnswerURL string }
	err = json.NewDecoder(resp.Body).Decode(&job)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || job.Status != "pending" {
		t.Fatalf("POST /jobs on %s: %s %+v %v", replicas[0], resp.Status, job, err)
	}
	if !strings.HasPrefix(job.AnswerURL, publicURL+"/a/") {
		t.Errorf("answer link %q, want it under the shared public URL %s", job.AnswerURL, publicURL)
	}
	resp, err = http.Get(bases[1] + "/jobs/" + job.JobID)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET the job on %s: %s, want it from the shared database", replicas[1], resp.Status)
	}
}
