package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/cmd/askonce/internal/wiring"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/internal/buildinfo"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/internal/ratelimit"
	"github.com/askonce/askonce/internal/tracing"
	"github.com/askonce/askonce/mcp"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/web"
)

// serveConfig is everything `askonce serve` can be told.
type serveConfig struct {
	Addr             string
	DB               string
	Interpreter      string
	ProfileFiles     string
	MaxAttempts      int
	QuestionTTL      time.Duration
	InterpretTimeout time.Duration
	HardCap          string
	MemoryScope      string
	MemoryTTL        time.Duration
	MemoryMaxTTL     time.Duration
	APIKeysFile      string
	Builder          string
	WebhookURL       string
	WebhookSecret    string
	BuilderCmd       string
	BuilderTimeout   time.Duration
	DeliveryAttempts int
	DeliveryBackoff  time.Duration
	ExpiryInterval   time.Duration
	ReadTimeout      time.Duration
	WriteTimeout     time.Duration
	SyncWait         time.Duration
	ShutdownTimeout  time.Duration
	IdempotencyLease time.Duration
	PlanningLease    time.Duration
	ReplicaID        string
	PublicURL        string
	LinkSecret       string
	TrustedProxies   string
	NotifyWebhook    string
	NotifySecret     string
	A2APush          bool
	A2APushSecret    string
	A2APushPrivate   bool
	LogLevel         string
	LogFormat        string
	MCPIdle          time.Duration
	MCPMaxSessions   int
	MCPMaxCalls      int
	Notify           notifyConfig
	OIDC             oidcConfig
}

const serveSummary = `Runs the askonce HTTP API. The defaults need no keys and no network: the
SQLite file ./askonce.db, the embedded rules interpreter with the general
profile, and 127.0.0.1:8080. Besides the API it serves the answer page
(/a/), the inbox (/ui), MCP (/mcp, docs/mcp.md) and A2A (/a2a, with the
Agent Card at /.well-known/agent-card.json; docs/integrations.md).`

func serveFlags(getenv func(string) string, out io.Writer) (*cli.Settings, *serveConfig) {
	c := &serveConfig{}
	s := cli.NewSettings("serve", serveSummary, getenv, out)
	s.String(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 takes a free port, which the \"askonce serving\" log line names)")
	s.String(&c.DB, "db", "askonce.db", cli.DBHelp)
	s.String(&c.Interpreter, "interpreter", "rules", "interpreter: rules, openai (configured by ASKONCE_OPENAI_*) or exec (ASKONCE_EXEC_*); see docs/interpreters.md")
	s.String(&c.ProfileFiles, "profile-files", "", "rules profiles from files, as name=path[,name=path]; a name replaces the embedded profile")
	s.Int(&c.MaxAttempts, "max-attempts", askonce.DefaultMaxAttempts, "interpreter calls per interpretation before validation_error")
	s.Duration(&c.QuestionTTL, "question-ttl", askonce.DefaultQuestionTTL, "how long a question waits for its answer (negative: forever)")
	s.Duration(&c.InterpretTimeout, "interpret-timeout", askonce.DefaultInterpretTimeout, "timeout of one interpreter call")
	s.String(&c.HardCap, "hard-cap", string(askonce.HardCapFallback), "policy when the interpreter asks after the answer: fallback or fail")
	s.String(&c.MemoryScope, "memory-scope", string(askonce.MemorySession), "answer memory of jobs that name none: session, project (jobs that name a project) or tenant (docs/protocol.md rule 5)")
	s.Duration(&c.MemoryTTL, "memory-ttl", askonce.DefaultMemoryTTL, "how long a project or tenant answer is remembered when its job gives no ttl")
	s.Duration(&c.MemoryMaxTTL, "memory-max-ttl", askonce.DefaultMaxMemoryTTL, "the longest memory ttl a job may ask for")
	s.String(&c.APIKeysFile, "api-keys-file", "", "file of '<tenant> <sha256-hex> [name=<key name>] [notify=<patterns>]' lines (see askonce hash-key); empty: no auth, one default tenant")
	s.String(&c.Builder, "builder", "none", "builder dispatch on success: none (builders poll GET /jobs?status=success), webhook or command")
	s.String(&c.WebhookURL, "webhook-url", "", "URL the webhook builder POSTs each successful job to")
	s.String(&c.WebhookSecret, "webhook-secret", "", "Standard Webhooks signing secret (whsec_...); prefer the environment variable")
	s.String(&c.BuilderCmd, "builder-cmd", "", "command builder: a command line (split on spaces, no shell) that gets the job JSON on stdin; exit 0 = delivered")
	s.Duration(&c.BuilderTimeout, "builder-timeout", 30*time.Second, "timeout of one delivery")
	s.Int(&c.DeliveryAttempts, "delivery-attempts", 8, "delivery tries before a dispatch is marked failed (exponential backoff)")
	s.Duration(&c.DeliveryBackoff, "delivery-backoff", time.Second, "wait before the second delivery try; it doubles per try, up to 5m")
	s.Duration(&c.ExpiryInterval, "expiry-interval", 30*time.Second, "how often overdue questions are expired")
	s.Duration(&c.ReadTimeout, "read-timeout", 15*time.Second, "HTTP read timeout")
	s.Duration(&c.WriteTimeout, "write-timeout", 60*time.Second, "HTTP write timeout (event streams extend it per event)")
	s.Duration(&c.SyncWait, "sync-wait", server.DefaultSyncWait, "how long POST /jobs, /clarification and /decline wait for planning before answering 202 with the job still planning (Prefer: wait=N asks for less; Prefer: respond-async for none); must be less than --write-timeout")
	s.Duration(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long in-flight requests may finish after SIGINT/SIGTERM")
	s.Duration(&c.IdempotencyLease, "idempotency-lease", server.DefaultOwnerLease, "lease on this process's Idempotency-Key claims, renewed every third of it: a retry of a crashed request is 409 for at most this long, then runs (or returns its job)")
	s.Duration(&c.PlanningLease, "planning-lease", askonce.DefaultPlanningLease, "lease on the jobs this process plans, renewed every third of it: when the process dies, another one sharing the database (or its restart) takes its planning jobs over once the lease lapses (docs/deploy.md)")
	s.String(&c.ReplicaID, "replica-id", "", "this process's name in planning leases: unique among the processes sharing the database, the same across restarts of one, which then take their jobs back at once. Empty: the host name and --addr")
	s.String(&c.PublicURL, "public-url", "", "URL clients reach this server at (scheme://host[:port][/prefix]); answer links are <public-url>/a/<token>. Empty: http:// + --addr (0.0.0.0 or [::] replaced by 127.0.0.1)")
	s.String(&c.LinkSecret, "link-secret", "", "secret (hex or base64, at least 32 bytes) that signs answer links; empty: the database's own random one. Changing it kills every link handed out before")
	s.String(&c.TrustedProxies, "trusted-proxies", "", "comma-separated CIDRs or addresses of the proxies in front of the server: only a request from one of them has its X-Forwarded-For or Forwarded header name the client address that failed API keys and answer links are limited by. Empty: the TCP peer is the client")
	s.String(&c.NotifyWebhook, "notify-webhook", "", "URL that gets a signed question.asked event when a job asks a human, and question.resolved when it stops pending")
	s.String(&c.NotifySecret, "notify-secret", "", "Standard Webhooks signing secret (whsec_...) of --notify-webhook; prefer the environment variable")
	s.Bool(&c.A2APush, "a2a-push", false, "offer A2A push notifications (off by default: River then runs in serve; a task without a push config costs one indexed read per change and no queued job): a task's push-notification configs are kept with its job, and the task is POSTed to each (on the River queue in the store's database) when it becomes input-required and when it ends")
	s.String(&c.A2APushSecret, "a2a-push-secret", "", "Standard Webhooks signing secret (whsec_...) of A2A push notifications; empty: unsigned (receivers check the config's token). Prefer the environment variable")
	s.Bool(&c.A2APushPrivate, "a2a-push-allow-private", false, "let A2A push notifications go to loopback, private, link-local, multicast and unspecified addresses (refused by default: a client chooses the URL); only for receivers you trust")
	s.Duration(&c.MCPIdle, "mcp-session-timeout", mcp.DefaultSessionTimeout, "close an MCP session (/mcp) that has had no request for this long; a call in progress keeps it (negative: never); see docs/mcp.md")
	s.Int(&c.MCPMaxSessions, "mcp-max-sessions", mcp.DefaultMaxSessions, "live MCP sessions per API key; one more initialize closes the least recently used idle one (negative: no limit)")
	s.Int(&c.MCPMaxCalls, "mcp-max-calls", mcp.DefaultMaxCalls, "MCP tool calls in flight per API key, waiting elicitations included; one more is a JSON-RPC error (negative: no limit)")
	c.Notify.flags(s)
	c.OIDC.flags(s)
	s.String(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	s.String(&c.LogFormat, "log-format", "text", "text or json")
	return s, c
}

// serve is askonce serve: parse the flags, start, run until ctx ends,
// close.
func serve(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, err := parseServe(args, getenv, stderr)
	if err != nil {
		return err
	}
	sv, err := startServe(ctx, c, getenv, stderr)
	if err != nil {
		return err
	}
	defer sv.close()
	return sv.run(ctx)
}

// parseServe reads serve's flags and variables and checks them together.
func parseServe(args []string, getenv func(string) string, stderr io.Writer) (*serveConfig, error) {
	s, c := serveFlags(getenv, stderr)
	if err := s.Parse(args); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// serving is a started askonce serve: listening, its store open, its
// engine and dispatcher built and started.
type serving struct {
	c      *serveConfig
	log    *slog.Logger
	ln     net.Listener
	srv    *http.Server
	engine *askonce.Engine
	d      *dispatch.Dispatcher // nil: no builder, notifier or channel
	pusher *a2a.Pusher          // nil: --a2a-push=false
	// What the handlers mount shares with the API.
	keys      *auth.Keys // nil: no auth
	reg       *metrics.Registry
	proxies   ratelimit.Proxies
	publicURL string
	oidc      *web.OIDC // nil: the inbox signs in with API keys
	// closers release what start acquired, in reverse order.
	closers []func()
}

// onClose adds f to what close releases (last added, first released).
func (sv *serving) onClose(f func()) { sv.closers = append(sv.closers, f) }

// close releases what startServe acquired, newest first: what run
// started, the store, the listener, then the tracing exporter, flushed.
func (sv *serving) close() {
	for i := len(sv.closers) - 1; i >= 0; i-- {
		sv.closers[i]()
	}
	sv.closers = nil
}

// startServe builds everything c asks for and listens; on an error it
// releases what it had acquired.
func startServe(ctx context.Context, c *serveConfig, getenv func(string) string, stderr io.Writer) (_ *serving, err error) {
	sv := &serving{c: c, log: newLogger(c, stderr)}
	defer func() {
		if err != nil {
			sv.close()
		}
	}()
	log := sv.log
	// Tracing, when the OTEL_* variables ask for it (docs/tracing.md).
	stopTracing, err := tracing.Setup(ctx, getenv)
	if err != nil {
		return nil, err
	}
	sv.onClose(func() {
		// Spans still buffered are flushed, with a bound of their own:
		// the shutdown's may be spent.
		tctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(tctx); err != nil {
			log.Warn("tracing: flush at exit", "err", err)
		}
	})
	if tracing.Enabled(getenv) {
		log.Info("tracing on: exporting spans as the OTEL_* variables say")
	}

	interp, err := wiring.NewInterpreter(c.Interpreter, c.ProfileFiles, getenv)
	if err != nil {
		return nil, err
	}
	builder, err := newBuilder(c)
	if err != nil {
		return nil, err
	}
	var keys *auth.Keys
	if c.APIKeysFile != "" {
		if keys, err = loadKeys(c.APIKeysFile); err != nil {
			return nil, err
		}
	}
	sv.keys = keys

	proxies, err := ratelimit.ParseProxies(c.TrustedProxies)
	if err != nil {
		return nil, cli.UsageError{Msg: "--trusted-proxies: " + err.Error()}
	}
	sv.proxies = proxies
	// Listening before the links are built lets --addr name port 0: the
	// server takes a free port, which the links and the log line below
	// name (tests read the address from that line).
	ln, err := net.Listen("tcp", c.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: address already in use: is another askonce serve running? choose --addr", c.Addr)
	}
	if err != nil {
		return nil, err
	}
	sv.ln = ln
	sv.onClose(func() { ln.Close() })
	publicURL, loopbackLinks, err := c.publicURL(ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		return nil, err
	}
	sv.publicURL = publicURL
	if loopbackLinks {
		log.Warn("answer links use a loopback address because --addr listens on every interface; set --public-url to the address people reach this server at", "publicURL", publicURL)
	}
	var notifier *dispatch.Webhook
	if c.NotifyWebhook != "" {
		notifier = &dispatch.Webhook{URL: c.NotifyWebhook, Secret: c.NotifySecret, Timeout: c.BuilderTimeout}
	}

	reg := metrics.NewRegistry()
	sv.reg = reg
	// The store queues a dispatch inside the success transaction, and a
	// question notification inside the ask's, through the dispatcher,
	// which needs the store: the hook joins them.
	var hook dispatch.Hook
	st, queue, err := wiring.OpenStore(ctx, c.DB, wiring.StoreHooks{Hook: &hook, Dispatch: builder != nil, Notify: notifier != nil || c.Notify.enabled() || c.A2APush, Log: log})
	if err != nil {
		return nil, err
	}
	sv.onClose(func() { st.Close() })
	linkSecret := st.LinkSecret()
	if c.LinkSecret != "" {
		if linkSecret, err = parseSecret(c.LinkSecret); err != nil {
			return nil, err
		}
	}
	// The engine is whole before River starts: a notification queued by
	// an earlier process runs as soon as it does, and renders its answer
	// link with the engine.
	engine := &askonce.Engine{
		Store: st, Interpreter: interp, MaxAttempts: c.MaxAttempts, QuestionTTL: c.QuestionTTL,
		Owner: c.replicaID(), PlanningLease: c.PlanningLease,
		InterpretTimeout: c.InterpretTimeout, HardCap: askonce.HardCap(c.HardCap), Logger: log,
		MemoryScope: askonce.MemoryScope(c.MemoryScope), MemoryTTL: c.MemoryTTL, MaxMemoryTTL: c.MemoryMaxTTL,
		Observer: metrics.NewObserver(reg), LinkSecret: linkSecret,
		DefaultRecipients: c.Notify.defaults(), NoBuilder: builder == nil,
		ReachMinInterval: c.Notify.ReachMinInterval,
	}
	sv.engine = engine
	if sv.oidc, err = c.OIDC.web(keys, publicURL, linkSecret); err != nil {
		return nil, err
	}
	channels, err := c.Notify.channels(engine, func(j *askonce.Job) string { return engine.AnswerURL(publicURL, j) },
		exponential(c.DeliveryBackoff, 5*time.Minute), reg, log)
	if err != nil {
		return nil, err
	}
	if c.A2APush {
		sv.pusher = a2a.NewPusher(a2a.PusherConfig{
			Engine: engine, PublicURL: publicURL, Secret: c.A2APushSecret, AllowPrivate: c.A2APushPrivate,
			Timeout: c.BuilderTimeout, Backoff: exponential(c.DeliveryBackoff, 5*time.Minute), Logger: log,
		})
		channels.list = append(channels.list, sv.pusher)
	}
	if builder != nil || notifier != nil || len(channels.list) > 0 {
		// A try may take the builder's timeout plus its recording; a try
		// of a process that died is retried soon after that.
		jobTimeout := c.BuilderTimeout + 5*time.Second
		cfg := dispatch.Config{
			Store: st, Builder: builder, MaxAttempts: c.DeliveryAttempts,
			Backoff: exponential(c.DeliveryBackoff, 5*time.Minute), JobTimeout: jobTimeout,
			RescueAfter: jobTimeout + 5*time.Second, Logger: log, OnDelivery: reg.ObserveDelivery,
			Notify: notifier, AnswerURL: func(j *askonce.Job) string { return engine.QuestionURL(publicURL, j) },
			Channels: channels.list, OnReach: metrics.NewObserver(reg).ObserveReach,
		}
		queue(&cfg)
		if sv.d, err = dispatch.New(ctx, cfg); err != nil {
			return nil, err
		}
		hook.Set(sv.d)
	}

	// Deliveries and notifications start once the engine they use is
	// set.
	if sv.d != nil {
		if err := sv.d.Start(context.WithoutCancel(ctx)); err != nil {
			return nil, err
		}
	}

	api := server.New(server.Config{
		Version: buildinfo.Get(),
		Engine:  engine, Keys: keys, Metrics: reg, Logger: log, AwaitDelivery: builder != nil,
		SyncWait: syncWait(c.SyncWait), Idempotency: st, OwnerLease: c.IdempotencyLease,
		PublicURL: publicURL, TrustedProxies: proxies,
		// The answer page, the inbox and MCP share the server.
		Mount: func(mux *http.ServeMux) { sv.mount(mux, channels) },
	})
	sv.srv = &http.Server{
		Addr:              c.Addr,
		Handler:           api,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Event streams would hold Shutdown until its timeout: end them.
	sv.srv.RegisterOnShutdown(api.CloseStreams)
	if keys == nil && !loopback(ln.Addr()) {
		log.Warn("listening beyond loopback with no API keys: anyone who can reach this address can create and answer jobs; set --api-keys-file", "addr", boundAddr(c.Addr, ln.Addr()))
	}
	log.Info("askonce serving", "addr", boundAddr(c.Addr, ln.Addr()), "db", wiring.ShownDB(c.DB), "interpreter", c.Interpreter, "builder", c.Builder, "publicURL", publicURL)
	base := listenURL(ln.Addr())
	log.Info("open", "api", base+"/", "ui", base+"/ui", "mcp", base+"/mcp", "a2a", base+a2a.Path, "metrics", base+"/metrics")
	return sv, nil
}

// mount adds the handlers that share the API server to its mux: the
// channels' endpoints, the answer page and inbox, MCP and A2A. They get
// its access log (tokens redacted), metrics and panic recovery.
func (sv *serving) mount(mux *http.ServeMux, channels *servedChannels) {
	channels.mount(mux)
	pages := web.New(web.Config{Engine: sv.engine, Keys: sv.keys, Logger: sv.log, TrustedProxies: sv.proxies, OIDC: sv.oidc})
	for _, p := range web.Patterns {
		mux.Handle(p, pages)
	}
	if sv.oidc != nil {
		go sv.checkSignIn(pages)
	}
	// MCP over streamable HTTP (docs/mcp.md), behind the API keys.
	opts := mcp.HTTPOptions{Logger: sv.log, Metrics: sv.reg, SessionTimeout: sv.c.MCPIdle, MaxSessions: sv.c.MCPMaxSessions, MaxCalls: sv.c.MCPMaxCalls, TrustedProxies: sv.proxies}
	if sv.keys != nil {
		opts.Caller = sv.keys.Caller
	}
	h := mcp.Handler(mcp.New(mcp.Config{Version: buildinfo.Get(), Engine: sv.engine, Metrics: sv.reg, PublicURL: sv.publicURL, StateSecret: sv.engine.LinkSecret, Logger: sv.log}), opts)
	for _, m := range []string{"GET", "POST", "DELETE"} {
		mux.Handle(m+" /mcp", h)
	}
	// A2A (docs/integrations.md): the card is public, /a2a and /a2a/rest are
	// behind the API keys.
	ac := a2a.Config{Engine: sv.engine, PublicURL: sv.publicURL, Version: buildinfo.Get(), Logger: sv.log, TrustedProxies: sv.proxies, Pusher: sv.pusher}
	if sv.keys != nil {
		ac.Caller = sv.keys.Caller
	}
	a2a.New(ac).Mount(mux)
}

// run serves until ctx ends, with the engine's background work (recovery
// of planning jobs a dead process left, the periodic sweep) beside it,
// then shuts down: in-flight requests finish, planning jobs end stored
// (or release their leases), the dispatcher stops.
func (sv *serving) run(ctx context.Context) error {
	c, log, engine := sv.c, sv.log, sv.engine
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	sv.onClose(stopBG)
	go func() {
		// Jobs a dead process left in planning: resume them.
		n, err := engine.Recover(bg)
		if err != nil {
			log.Error("recover planning jobs", "err", err)
		}
		if n > 0 {
			log.Info("recovered planning jobs", "count", n)
		}
	}()
	go sweep(bg, engine, min(c.ExpiryInterval, c.PlanningLease/3), log)

	errc := make(chan error, 1)
	go func() { errc <- sv.srv.Serve(sv.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "timeout", c.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownTimeout)
	defer cancel()
	err := sv.srv.Shutdown(sctx)
	// Jobs planning in the background outlive their requests: let them
	// end stored. One cut off here stays planning and is resumed at the
	// next start.
	if derr := engine.Drain(sctx); derr != nil {
		log.Warn("jobs still planning at shutdown; another process or the next start resumes them", "err", derr)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := engine.ReleaseLeases(rctx); err != nil {
			log.Warn("release planning leases: they lapse by themselves", "err", err)
		}
		cancel()
	}
	stopBG()
	if sv.d != nil {
		if derr := sv.d.Stop(sctx); derr != nil {
			err = errors.Join(err, derr)
		}
	}
	log.Info("stopped")
	return err
}

func (c *serveConfig) check() error {
	if err := c.Notify.check(); err != nil {
		return err
	}
	if err := c.Notify.checkReach(c.QuestionTTL); err != nil {
		return err
	}
	if err := cli.OneOf("hard-cap", c.HardCap, string(askonce.HardCapFallback), string(askonce.HardCapFail)); err != nil {
		return err
	}
	if err := cli.OneOf("builder", c.Builder, "none", "webhook", "command"); err != nil {
		return err
	}
	if _, err := askonce.ParseMemoryScope("--memory-scope", c.MemoryScope); err != nil {
		return cli.UsageError{Msg: askonce.ErrorMessage(err)}
	}
	if c.MemoryTTL <= 0 || c.MemoryMaxTTL <= 0 || c.MemoryTTL > c.MemoryMaxTTL {
		return cli.UsageError{Msg: fmt.Sprintf("--memory-ttl %s must be positive and at most --memory-max-ttl %s", c.MemoryTTL, c.MemoryMaxTTL)}
	}
	if err := cli.OneOf("log-format", c.LogFormat, "text", "json"); err != nil {
		return err
	}
	if err := cli.OneOf("log-level", c.LogLevel, "debug", "info", "warn", "error"); err != nil {
		return err
	}
	switch {
	case c.Builder == "webhook" && (c.WebhookURL == "" || c.WebhookSecret == ""):
		return cli.UsageError{Msg: "--builder webhook needs --webhook-url and --webhook-secret (or ASKONCE_WEBHOOK_URL and ASKONCE_WEBHOOK_SECRET)"}
	case c.Builder == "command" && strings.TrimSpace(c.BuilderCmd) == "":
		return cli.UsageError{Msg: "--builder command needs --builder-cmd"}
	case c.MaxAttempts < 1:
		return cli.UsageError{Msg: "--max-attempts must be at least 1"}
	case c.DeliveryAttempts < 1:
		return cli.UsageError{Msg: "--delivery-attempts must be at least 1"}
	case c.ExpiryInterval <= 0:
		return cli.UsageError{Msg: "--expiry-interval must be positive"}
	case c.PlanningLease < 3*time.Millisecond:
		return cli.UsageError{Msg: "--planning-lease must be at least 3ms"}
	case c.MCPIdle == 0 || c.MCPMaxSessions == 0 || c.MCPMaxCalls == 0:
		return cli.UsageError{Msg: "--mcp-session-timeout, --mcp-max-sessions and --mcp-max-calls must not be 0 (negative: no limit)"}
	case c.SyncWait < 0:
		return cli.UsageError{Msg: "--sync-wait must not be negative (0: always answer 202 at once)"}
	case c.WriteTimeout > 0 && c.WriteTimeout <= c.SyncWait:
		return cli.UsageError{Msg: fmt.Sprintf("--write-timeout (%s) must be larger than --sync-wait (%s): a request that waits for planning must still be able to write its answer", c.WriteTimeout, c.SyncWait)}
	case c.IdempotencyLease < 3*time.Millisecond:
		return cli.UsageError{Msg: "--idempotency-lease must be at least 3ms"}
	case c.NotifySecret != "" && c.NotifyWebhook == "":
		return cli.UsageError{Msg: "--notify-secret needs --notify-webhook"}
	}
	if err := c.OIDC.check(c.APIKeysFile); err != nil {
		return err
	}
	if c.NotifyWebhook != "" {
		if u, err := url.Parse(c.NotifyWebhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cli.UsageError{Msg: "--notify-webhook must be an http:// or https:// URL"}
		}
	}
	if c.LinkSecret != "" {
		if _, err := parseSecret(c.LinkSecret); err != nil {
			return err
		}
	}
	if _, err := ratelimit.ParseProxies(c.TrustedProxies); err != nil {
		return cli.UsageError{Msg: "--trusted-proxies: " + err.Error()}
	}
	return nil
}

// replicaID returns --replica-id, or the host name and --addr: a restart
// with the same flags on the same machine is the same replica. With a
// port of 0 each start differs: empty, the engine's random id.
func (c *serveConfig) replicaID() string {
	if c.ReplicaID != "" {
		return c.ReplicaID
	}
	if _, port, _ := net.SplitHostPort(c.Addr); port == "0" {
		return ""
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return host + " " + c.Addr
}

// publicURL returns --public-url without a trailing slash, or the default
// built from --addr: http://host:port, with an unspecified host (0.0.0.0,
// [::] or none) replaced by 127.0.0.1, which loopback reports, and port 0
// by the port the server listens on.
func (c *serveConfig) publicURL(listening int) (string, bool, error) {
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return "", false, cli.UsageError{Msg: fmt.Sprintf("--public-url %q: want http(s)://host[:port][/prefix]", c.PublicURL)}
		}
		return strings.TrimSuffix(c.PublicURL, "/"), false, nil
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return "", false, cli.UsageError{Msg: fmt.Sprintf("--addr %q: %v", c.Addr, err)}
	}
	if port == "0" {
		port = strconv.Itoa(listening)
	}
	unspecified := host == ""
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		unspecified = true
	}
	if unspecified {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), unspecified, nil
}

// parseSecret reads --link-secret: hex, or standard or URL-safe base64
// (padded or not), of at least 32 bytes.
func parseSecret(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	decoders := []func(string) ([]byte, error){
		hex.DecodeString, base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString,
	}
	for _, dec := range decoders {
		if b, err := dec(s); err == nil {
			if len(b) < 32 {
				return nil, cli.UsageError{Msg: fmt.Sprintf("--link-secret is %d bytes; want at least 32 (openssl rand -hex 32)", len(b))}
			}
			return b, nil
		}
	}
	return nil, cli.UsageError{Msg: "--link-secret is neither hex nor base64 (openssl rand -hex 32)"}
}

func newLogger(c *serveConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(c.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	// A line logged inside a traced request or delivery carries its
	// trace_id and span_id.
	if c.LogFormat == "json" {
		return slog.New(tracing.LogHandler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(tracing.LogHandler(slog.NewTextHandler(w, opts)))
}

func newBuilder(c *serveConfig) (dispatch.Builder, error) {
	switch c.Builder {
	case "webhook":
		return &dispatch.Webhook{URL: c.WebhookURL, Secret: c.WebhookSecret, Timeout: c.BuilderTimeout}, nil
	case "command":
		return &dispatch.Command{Argv: strings.Fields(c.BuilderCmd), Timeout: c.BuilderTimeout}, nil
	}
	return nil, nil
}

func loadKeys(path string) (*auth.Keys, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("api keys: %w", err)
	}
	defer f.Close()
	k, err := auth.LoadKeys(f)
	if err != nil {
		return nil, fmt.Errorf("api keys %s: %w", path, err)
	}
	return k, nil
}

// exponential is the delivery backoff: base, 2·base, 4·base, … capped.
func exponential(base, ceiling time.Duration) func(attempt int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < ceiling; i++ {
			d *= 2
		}
		return min(d, ceiling)
	}
}

// boundAddr is the address serve listens on as --addr names it, with the
// port it got (--addr 127.0.0.1:0 takes a free one): Go reports a
// listener on 0.0.0.0 as [::], which is not what the operator asked for.
// A host left out (--addr :8080) is shown as the listener reports it.
func boundAddr(configured string, a net.Addr) string {
	host, _, err := net.SplitHostPort(configured)
	ta, ok := a.(*net.TCPAddr)
	if err != nil || host == "" || !ok {
		return a.String()
	}
	return net.JoinHostPort(host, strconv.Itoa(ta.Port))
}

// listenURL is the base URL of the address the server listens on, with an
// unspecified host (0.0.0.0, [::], as --addr :8080 listens) shown as
// 127.0.0.1, as --public-url's default does, so that the start-up log's
// URLs open on this machine.
func listenURL(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String()
	}
	host := ta.IP.String()
	if ta.IP == nil || ta.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(ta.Port))
}

func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// sweep runs the engine's periodic work (expiry, taking over lapsed
// planning leases) every tick, in whichever process sharing the database
// leads.
func sweep(ctx context.Context, e *askonce.Engine, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sw, err := e.Sweep(ctx)
			if err != nil {
				log.Error("periodic sweep", "err", err)
			}
			if sw.Expired > 0 {
				log.Info("expired questions", "count", sw.Expired)
			}
			if sw.TakenOver > 0 {
				log.Info("took over planning jobs whose lease lapsed", "count", sw.TakenOver)
			}
		}
	}
}

const hashKeyUsage = `Usage: askonce hash-key TENANT < keyfile
       askonce hash-key --new TENANT >> keys

Reads an API key on stdin and prints the line of an API keys file
(--api-keys-file of askonce serve) for it: the tenant and the key's
SHA-256 in hex. The key itself is never stored. A key must be able to
carry 128 bits (32 hex digits, 22 characters of base64): a shorter one
is refused, since the server, holding only hashes, cannot tell.

--new makes a key of 256 random bits, writes it to stderr for the client
and its keys file line to stdout.
`

// hashKey prints the API keys file line of the key on stdin, or of a new
// key (--new, the key on stderr).
func hashKey(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, hashKeyUsage)
		return nil
	}
	fresh := len(args) == 2 && args[0] == "--new"
	if fresh {
		args = args[1:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return cli.UsageError{Msg: "usage: askonce hash-key [--new] TENANT < keyfile  (prints '<tenant> <sha256-hex>' for an API keys file)"}
	}
	var key string
	if fresh {
		key = auth.NewKey()
		fmt.Fprintf(stderr, "%s\n(the new key: give it to the client; the keys file holds only its hash)\n", key)
	} else {
		b, err := io.ReadAll(io.LimitReader(stdin, 4096))
		if err != nil {
			return err
		}
		key = strings.TrimSpace(string(b))
		if key == "" {
			return cli.UsageError{Msg: "hash-key: no key on stdin"}
		}
		if bits := auth.KeyBits(key); bits < auth.MinKeyBits {
			return cli.UsageError{Msg: fmt.Sprintf("hash-key: the key can carry at most %.0f bits, under the %d an API key needs (32 hex digits, 22 characters of base64); make one with askonce hash-key --new %s", bits, auth.MinKeyBits, args[0])}
		}
	}
	fmt.Fprintf(stdout, "%s %s\n", args[0], auth.HashKey(key))
	return nil
}

// syncWait maps --sync-wait to server.Config.SyncWait, where 0 means the
// default and a negative value means not to wait.
func syncWait(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// moduleVersion is this binary's module version, as the A2A card tells it.
