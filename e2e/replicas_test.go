package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// freeAddr reserves a loopback port and frees it for the process under test.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t, callTimeout), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthAndPrometheus: the built binary serves /healthz and /readyz
// beside /mcp without the bearer token, and, with telemetry.prometheus,
// its metrics in Prometheus's format on their own address.
func TestHealthAndPrometheus(t *testing.T) {
	t.Parallel()
	prom := freeAddr(t)
	cfg := writeConfig(t, configYAML(map[string]upstream{"go-everything": {Command: needGoEverything(t)}})+fmt.Sprintf(`
http:
  bearer_token: e2e-secret
telemetry:
  prometheus: %s
`, prom))
	url := startHTTP(t, cfg)
	base := strings.TrimSuffix(url, "/mcp")
	if code, body := httpGet(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q, want 200 ok", code, body)
	}
	if code, body := httpGet(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz: %d %q, want 200 ready", code, body)
	}
	if code, _ := httpGet(t, url); code != http.StatusUnauthorized {
		t.Errorf("/mcp without the token: %d, want 401", code)
	}
	cs := connectHTTPToken(t, url, "e2e-secret")
	if res := callTool(t, cs, "run_script", map[string]any{"code": "return 1 + 1", "language": "lua"}); res.IsError {
		t.Fatalf("run_script: %s", text(res))
	}
	code, body := httpGet(t, "http://"+prom+"/metrics")
	if code != 200 || !strings.Contains(body, "toolfold_script_runs") {
		t.Errorf("/metrics: %d, want toolfold_script_runs in:\n%.2000s", code, body)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTPToken is connectHTTP with a bearer token.
func connectHTTPToken(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	cs, err := client.Connect(testCtx(t, startTimeout), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
