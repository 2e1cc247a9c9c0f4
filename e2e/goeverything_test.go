package e2e

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startGoEverythingHTTP runs the Go SDK's everything-server over streamable HTTP on
// a free loopback port, with extra flags (-stateless=false), and returns its URL.
func startGoEverythingHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(needGoEverything(t), append([]string{"-http", addr}, flags...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = exitGrace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(startTimeout); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("everything-server -http %s not listening: %v\nstderr:\n%s", addr, err, stderr)
		}
	}
	return fmt.Sprintf("http://%s/mcp", addr)
}

// TestGoEverything puts toolfold in front of the Go SDK's conformance server,
// which speaks the 2026-07-28 protocol, over stdio and over HTTP. Its name has a
// "-", so scripts call it as tools.go_everything.
func TestGoEverything(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			u := upstream{Command: needGoEverything(t)}
			if transport == "http" {
				u = upstream{URL: startGoEverythingHTTP(t)}
			}
			cs := startStdio(t, writeConfig(t, configYAML(map[string]upstream{"go-everything": u})))

			res := callTool(t, cs, "search_tools", map[string]any{"query": "simple text response", "detail": "name"})
			found := false
			for _, n := range qualifiedNames(text(res)) {
				found = found || strings.ReplaceAll(n, "-", "_") == "go_everything.test_simple_text"
			}
			if !found {
				t.Errorf("search does not list go-everything.test_simple_text:\n%s", text(res))
			}

			out := scriptOK(t, cs, `local text = tools.go_everything.test_simple_text{}
local ok, err = pcall(function() return call("go_everything.test_error_handling", {}) end)
return {text = text, ok = ok, err = tostring(err)}`)
			var got struct {
				Text, Err string
				OK        bool
			}
			returned(t, out, &got)
			if got.Text != "This is a simple text response for testing." {
				t.Errorf("test_simple_text gave %q", got.Text)
			}
			if got.OK || !strings.Contains(got.Err, "intentionally returns an error") {
				t.Errorf("pcall(test_error_handling) = %v, %q; want false and the upstream's message", got.OK, got.Err)
			}
		})
	}
}
