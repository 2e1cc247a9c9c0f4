package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/dashboard"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/proxy"
)

// proxySource is the dashboard's view of the proxy, set once the proxy
// is made (the proxy needs the dashboard, as its observer, first).
type proxySource struct{ p *proxy.Proxy }

func (s *proxySource) Status() []proxy.UpstreamStatus { return s.p.Status() }
func (s *proxySource) Sessions() []proxy.SessionInfo  { return s.p.Sessions() }
func (s *proxySource) Pins() *policy.Pins             { return s.p.Pins() }

// newDashboard makes serve's dashboard, or nil when the ui key turns it
// off or nothing would serve it (stdio without a ui address).
func newDashboard(cfg *config.Config, httpMode bool, log *slog.Logger) (*dashboard.Dashboard, *proxySource) {
	if cfg.UI == config.UIOff || (cfg.UI == "" && !httpMode) {
		return nil, nil
	}
	src := &proxySource{}
	return dashboard.New(src, &dashboard.Options{Logger: log.With("component", "dashboard")}), src
}

// withDashboard serves d's paths (/ and /ui/) on the MCP listener, and the
// rest with mcp.
func withDashboard(mcp http.Handler, d *dashboard.Dashboard) http.Handler {
	if d == nil {
		return mcp
	}
	page := d.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.IsPath(r.URL.Path) {
			page.ServeHTTP(w, r)
			return
		}
		mcp.ServeHTTP(w, r)
	})
}

// serveDashboard serves d on the ui key's own address until ctx ends, and
// prints its URL.
func serveDashboard(ctx context.Context, d *dashboard.Dashboard, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("ui: listen %s: %w; pick a free port (ui: 127.0.0.1:PORT), or ui: off", addr, err)
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	printDashboard(stderr, d, ln.Addr())
	go func() { _ = srv.Serve(ln) }()
	context.AfterFunc(ctx, func() {
		d.Close()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close() // event streams do not end by themselves
	})
	return nil
}

// printDashboard prints the dashboard's URL on a listener at addr: a
// loopback one, since the page answers this machine only.
func printDashboard(stderr io.Writer, d *dashboard.Dashboard, addr net.Addr) {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		host = "127.0.0.1"
	}
	fmt.Fprintf(stderr, "toolfold: dashboard at %s (this machine only; the token in it is the key)\n", d.URL(net.JoinHostPort(host, port)))
}
