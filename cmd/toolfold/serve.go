package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/dashboard"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/sandbox"
)

// startupWait bounds how long serve waits for upstreams before answering
// the client: a slow upstream (npx downloading a package) joins later, and
// clients learn of its tools through notifications/tools/list_changed.
// Upstreams in the catalog cache are not waited for: their cached tools
// are searchable meanwhile, marked as connecting.
const startupWait = 15 * time.Second

func cmdServe(ctx context.Context, args []string, stderr io.Writer) int {
	fs, c := newFlags("serve", stderr, "info")
	httpAddr := fs.String("http", "", "serve streamable HTTP at ADDR (e.g. 127.0.0.1:8765; port 0 picks one) instead of stdio")
	if _, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	addr := *httpAddr
	if addr == "" {
		addr = cfg.HTTP.Addr
	}
	token := proxy.BearerToken(cfg.HTTP.BearerToken, os.Getenv)
	if addr != "" {
		if err := proxy.CheckListenAddr(addr, token); err != nil {
			return fail(stderr, "%v", err)
		}
	}
	ts, err := resolveTelemetry(cfg.Telemetry, os.Getenv)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	tel, err := startTelemetry(context.WithoutCancel(ctx), ts, buildVersion(), stderr, log)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if !ts.off() {
		log.Info("telemetry: " + ts.String())
	}
	log.Info(sandboxLine())
	log.Info(sandbox.ExeNote())
	// Deferred first, so it runs last: spans of requests that end while the
	// proxy closes are still flushed.
	defer func() {
		if err := tel.shutdown(); err != nil {
			log.Warn("telemetry: flushing on exit", "err", err)
		}
	}()
	st, err := openStore(cfg, log)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	var ready func(context.Context) error
	if st != nil {
		defer st.Close()
		ready = st.Ping
		log.Info("store: " + st.String())
	}
	aud, err := audit.Open(cfg.Audit, &audit.Options{Logger: log.With("component", "audit")})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if aud != nil {
		defer aud.Close() // deferred before p.Close, so it runs after: the last runs are recorded
		log.Info("audit: " + aud.File())
	}
	runners, langs := languages(cfg, log, cfg.Sandbox.Warm)
	logLanguages(log, langs)
	dash, dashSrc := newDashboard(cfg, addr != "", log)
	var observer proxy.Observer
	if dash != nil {
		observer = dash
	}
	p := startProxy(ctx, cfg, log, startupWait, &proxy.Options{
		Runners:        runners, // closed by p.Close: warm children end with the proxy
		TracerProvider: tel.tracer,
		MeterProvider:  tel.meter,
		CaptureContent: ts.CaptureContent,
		Store:          st,
		ReadyCheck:     ready,
		Audit:          aud,
		// Upstreams listed before are searchable at once from the catalog
		// cache, marked as connecting; serve waits only for the others.
		// Only with expose: code, where clients see search_tools alone: in
		// passthrough and hybrid the upstreams' own tools are listed.
		CachedTools: servedFromCache(cfg),
		Observer:    observer,
	})
	defer p.Close()
	if dash != nil {
		dashSrc.p = p
		if cfg.UI != "" {
			if err := serveDashboard(ctx, dash, cfg.UI, stderr); err != nil {
				return fail(stderr, "%v", err)
			}
		}
	}
	if cfg.UI != "" {
		dash = nil // served on its own address, not on the MCP listener
	}
	saveCatalog(cfg, p.Status(), log)
	// Again on the way out: upstreams that were slow to start, or whose
	// tools changed, are listed by then.
	defer func() { saveCatalog(cfg, p.Status(), log) }()
	if addr == "" {
		log.Info("serving MCP on stdio", "upstreams", len(cfg.Upstreams))
		err = p.ServeStdio(ctx)
	} else {
		err = serveHTTP(ctx, p, addr, token, cfg.HTTP.DrainTimeout, dash, log, stderr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("serve ended", "err", err)
		return exitFailed
	}
	log.Info("shutting down")
	return exitOK
}

// startProxy connects the upstreams and waits up to wait for them. opts,
// which may be nil, gets the logger and version.
func startProxy(ctx context.Context, cfg *config.Config, log *slog.Logger, wait time.Duration, opts *proxy.Options) *proxy.Proxy {
	if opts == nil {
		opts = &proxy.Options{}
	}
	opts.Logger, opts.Version = log, buildVersion()
	if opts.OAuth == nil {
		opts.OAuth = oauthOptions(cfg, log, os.Stderr, false)
	}
	if opts.Runners == nil {
		var st []langStatus
		opts.Runners, st = languages(cfg, log, false)
		logLanguages(log, st)
	}
	p := proxy.New(cfg, opts)
	p.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	p.WaitReady(wctx)
	return p
}

func serveHTTP(ctx context.Context, p *proxy.Proxy, addr, token string, drain time.Duration, dash *dashboard.Dashboard, log *slog.Logger, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	// Headers within 10 s; an idle keep-alive connection closes after 2
	// minutes. Bodies have their own deadline (internal/httplimit): a
	// ReadTimeout would also cut the long-lived server-to-client stream.
	srv := &http.Server{Handler: withDashboard(p.HTTPHandler(token), dash), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stderr, "toolfold: listening on http://%s/mcp\n", ln.Addr())
	if dash != nil {
		printDashboard(stderr, dash, ln.Addr())
		srv.RegisterOnShutdown(dash.Close)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// A graceful drain: /readyz fails and new sessions are refused at once
	// (a load balancer sends them elsewhere); requests in flight, scripts
	// included, get up to drain to finish.
	if drain <= 0 {
		drain = config.DefaultDrainTimeout
	}
	log.Info("draining: new sessions refused, waiting for requests in flight", "up_to", drain)
	dctx, dcancel := context.WithTimeout(context.Background(), drain)
	if !p.Drain(dctx) {
		log.Warn("drain: requests still running after the bound are cancelled", "drain_timeout", drain)
	}
	dcancel()
	p.Shutdown() // cancel whatever still runs so open requests finish now
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return nil
}
