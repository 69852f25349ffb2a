package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askonce/askonce/api"
	"github.com/askonce/askonce/internal/cli"
)

const healthSummary = `Ask a running server whether it is healthy: GET <server>/healthz. Exits 0
when it answers 200 {"ok":true}, 1 otherwise. It is the container image's
health check, which has no curl: HEALTHCHECK CMD ["/askonce", "health"].
Without --server (ASKONCE_SERVER) it asks the port ASKONCE_ADDR names, on
127.0.0.1, so that one variable moves serve and its health check alike.`

type healthConfig struct {
	Server  string
	Timeout time.Duration
}

// health checks a server's /healthz and prints its version.
func health(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c := &healthConfig{}
	s := cli.NewSettings("health", healthSummary, getenv, stderr)
	s.String(&c.Server, "server", "", "base URL of the server to check (default: http://127.0.0.1 on the port of ASKONCE_ADDR, else :8080)")
	s.Duration(&c.Timeout, "timeout", 5*time.Second, "give up after this long")
	if err := s.Parse(args); err != nil {
		return err
	}
	if c.Server == "" {
		c.Server = localServer(getenv("ASKONCE_ADDR"))
	}
	base, err := url.Parse(c.Server)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return cli.UsageError{Msg: fmt.Sprintf("--server %q: want http(s)://host:port", c.Server)}
	}
	if c.Timeout <= 0 {
		return cli.UsageError{Msg: "--timeout must be positive"}
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	target := strings.TrimSuffix(base.String(), "/") + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer resp.Body.Close()
	var h api.Health
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h); err != nil {
		return fmt.Errorf("health: GET %s: %s, and the body is not the health JSON: %v", target, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK || !h.OK {
		return fmt.Errorf("health: GET %s: %s: %s", target, resp.Status, h.Error)
	}
	fmt.Fprintf(stdout, "ok %s %s\n", target, h.Version)
	return nil
}

// localServer is the URL on this machine of a server listening on addr
// (serve's --addr): its port on 127.0.0.1 when it listens on every
// address, else addr itself; http://127.0.0.1:8080 when addr is empty or
// not host:port.
func localServer(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "http://127.0.0.1:8080"
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
