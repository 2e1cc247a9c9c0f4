package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolfold/toolfold/config"
)

// TestDashboardModes: the ui key and the transport decide whether serve
// makes a dashboard: on by default with --http, off by default with stdio,
// on with an address, off with off.
func TestDashboardModes(t *testing.T) {
	for _, tc := range []struct {
		ui   string
		http bool
		want bool
	}{
		{"", true, true},
		{"", false, false},
		{"127.0.0.1:0", false, true},
		{"127.0.0.1:0", true, true},
		{config.UIOff, true, false},
		{config.UIOff, false, false},
	} {
		d, _ := newDashboard(&config.Config{UI: tc.ui}, tc.http, slog.New(slog.DiscardHandler))
		if (d != nil) != tc.want {
			t.Errorf("ui %q, http %v: dashboard %v, want %v", tc.ui, tc.http, d != nil, tc.want)
		}
	}
}

// TestWithDashboard: on the HTTP listener the dashboard's paths go to it,
// the rest (MCP, health) to the proxy.
func TestWithDashboard(t *testing.T) {
	d, _ := newDashboard(&config.Config{}, true, slog.New(slog.DiscardHandler))
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Header().Set("X-Served-By", "mcp") })
	h := withDashboard(mcp, d)
	for path, wantMCP := range map[string]bool{"/mcp": true, "/healthz": true, "/": false, "/ui/runs": false} {
		r := httptest.NewRequest("GET", path+"?token="+d.Token(), nil)
		r.RemoteAddr, r.Host = "127.0.0.1:1", "127.0.0.1:8765"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Header().Get("X-Served-By") == "mcp"; got != wantMCP {
			t.Errorf("%s: served by mcp %v, want %v (status %d)", path, got, wantMCP, w.Code)
		}
		if !wantMCP && w.Code != http.StatusSeeOther {
			t.Errorf("%s with the token: %d, want 303 (the token traded for a cookie)", path, w.Code)
		}
	}
}
