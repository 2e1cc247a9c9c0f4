package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestHTTP runs the core flow over streamable HTTP: two tools, search, a script.
func TestHTTP(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	url := startHTTP(t, writeConfig(t, configYAML(ups)))
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("listening on %s, want loopback", url)
	}
	cs := connectHTTP(t, url)

	if tools, size := listTools(t, cs); len(tools) != 2 || size > maxToolsJSON {
		t.Errorf("%d tools, %d bytes; want 2 tools, at most %d bytes", len(tools), size, maxToolsJSON)
	}
	res := callTool(t, cs, "search_tools", map[string]any{"query": "read a text file", "detail": "name"})
	if names := qualifiedNames(text(res)); len(names) == 0 || !strings.HasPrefix(names[0], "filesystem.") {
		t.Errorf("search over HTTP: want a filesystem tool first:\n%s", text(res))
	}
	checkLineCount(t, cs, root)

	t.Run("DNS rebinding protection", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		req, err := http.NewRequestWithContext(testCtx(t, callTimeout), "POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "rebound.example:80"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("request with Host %s: status %d, want 403", req.Host, resp.StatusCode)
		}
	})
}

// TestHTTPRefusesPublicBind: a non-loopback address needs a bearer token.
func TestHTTPRefusesPublicBind(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, configYAML(map[string]upstream{"go-everything": {Command: needGoEverything(t)}}))
	r := runCLIWithin(t, cliTimeout, "serve", "-c", cfg, "--http", "0.0.0.0:0")
	if r.code == 0 || listenRE.MatchString(r.stderr) {
		t.Fatalf("serve --http 0.0.0.0:0 without a token: exit %d, want non-zero and no listener\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "http.bearer_token") {
		t.Errorf("refusal does not say to set http.bearer_token:\n%s", r.stderr)
	}
}
