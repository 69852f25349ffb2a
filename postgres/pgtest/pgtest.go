// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by the environment variable ASKONCE_TEST_POSTGRES (a
// postgres:// URL of a user that may create databases): each test run
// (each test binary) creates one fresh database, askonce_test_<random>,
// and drops it at the end; each store a test opens gets a schema of its
// own in it, so that stores start empty and tests run in parallel.
//
// Without ASKONCE_TEST_POSTGRES the tests skip, saying why, except when
// CI is set: CI must run them, so there it is a failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN is the variable that names the test server.
const EnvDSN = "ASKONCE_TEST_POSTGRES"

var (
	once    sync.Once
	runDSN  string // the run's database
	runName string
	runErr  error
)

// Main runs the package's tests, drops the run's database and exits. Call
// it from TestMain, or call Drop from a TestMain of your own.
func Main(m *testing.M) {
	code := m.Run()
	Drop()
	os.Exit(code)
}

// Drop drops the run's database, if one was made. Call it once the
// tests ran.
func Drop() {
	if runName == "" {
		return
	}
	if err := drop(runName); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: drop database %s: %v\n", runName, err)
	}
}

// serverDSN returns ASKONCE_TEST_POSTGRES, or skips (fails under CI) the
// test when it is unset.
func serverDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: CI must run the PostgreSQL tests (.ci/run starts the server and sets it)", EnvDSN)
		}
		t.Skipf("skipping: %s is not set (a postgres:// URL of a server where the tests may create a database, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)", EnvDSN)
	}
	return dsn
}

// Database returns the DSN of the test run's database, creating it on
// first use. Every caller in the run shares it: tests that need an empty
// store use Schema.
func Database(t testing.TB) string {
	t.Helper()
	base := serverDSN(t)
	once.Do(func() { runDSN, runName, runErr = create(base) })
	if runErr != nil {
		t.Fatalf("create the test database: %v", runErr)
	}
	return runDSN
}

// Schema returns the DSN of a new, empty schema in the run's database:
// every connection of that DSN works in it (search_path), so a store
// opened on it sees its own tables only.
func Schema(t testing.TB) string {
	t.Helper()
	dsn := Database(t)
	name := "s_" + random()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	return withParam(dsn, "search_path", name)
}

func random() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// withParam returns dsn with the query parameter name set to value.
func withParam(dsn, name, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err) // create made it
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// create makes the run's database and returns its DSN and name.
func create(base string) (string, string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", "", fmt.Errorf("%s is not a postgres:// URL", EnvDSN)
	}
	name := "askonce_test_" + random()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", err
	}
	u.Path = "/" + name
	return u.String(), name, nil
}

// drop drops the run's database, ending the connections still in it.
func drop(name string) error {
	if !strings.HasPrefix(name, "askonce_test_") {
		return fmt.Errorf("refusing to drop %q", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv(EnvDSN))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	return err
}
