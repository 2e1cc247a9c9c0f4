package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/oauth"
)

// bearerServer is an MCP server that answers only requests bearing token,
// and a 401 naming its protected-resource metadata otherwise.
func bearerServer(t *testing.T, token string) *httptest.Server {
	return bearerServerScoped(t, token, false)
}

// bearerServerScoped is bearerServer; with stepUp, tools/call answers 403
// insufficient_scope asking for the scope "write".
func bearerServerScoped(t *testing.T, token string, stepUp bool) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "hosted"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if stepUp && bytes.Contains(body, []byte(`"tools/call"`)) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="write", resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func oauthUpstream(url string) config.Upstream {
	return config.Upstream{Name: "hosted", Transport: "http", URL: url, OAuth: &config.OAuth{},
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
}

// An upstream the user has not signed in to is unavailable with a reason
// that names toolfold login, to check and to the model alike; it never
// opens a sign-in page by itself (no Open).
func TestOAuthUpstreamNeedsLogin(t *testing.T) {
	ts := bearerServer(t, "tok-1")
	store := oauth.NewStore(filepath.Join(t.TempDir(), "oauth.json"))
	p, cs := startProxyWith(t, testConfig(oauthUpstream(ts.URL)), &Options{OAuth: &oauth.Options{Store: store}})
	st := p.Status()[0]
	if st.State != StateDown || !strings.Contains(st.Err, "run `toolfold login hosted`") || strings.Contains(st.Err, "rejected by transport") {
		t.Fatalf("status %s: %q; want down, naming toolfold login hosted, without the transport's wording", st.State, st.Err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": "return tools.hosted.whoami{}"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "toolfold login hosted") || strings.Contains(text, "retry shortly") {
		t.Errorf("a script calling it gets %q; want the login hint, not 'retry shortly'", text)
	}
}

// A stored token is sent, and the upstream serves.
func TestOAuthUpstreamUsesStoredToken(t *testing.T) {
	ts := bearerServer(t, "tok-1")
	store := oauth.NewStore(filepath.Join(t.TempDir(), "oauth.json"))
	if err := store.Put("hosted", &oauth.Record{URL: ts.URL, ClientID: "c", TokenURL: ts.URL + "/token", AccessToken: "tok-1",
		Expiry: time.Now().Add(time.Hour), Saved: time.Now()}); err != nil {
		t.Fatal(err)
	}
	p, _ := startProxyWith(t, testConfig(oauthUpstream(ts.URL)), &Options{OAuth: &oauth.Options{Store: store}})
	if st := p.Status()[0]; st.State != StateReady || len(st.Tools) != 1 {
		t.Fatalf("status %s: %q, %d tools; want ready with the stored token", st.State, st.Err, len(st.Tools))
	}
}

// A step-up the user must sign in for (no Open) fails the call naming
// toolfold login, and keeps the session: it is not a broken connection.
func TestOAuthStepUpNeedsLogin(t *testing.T) {
	ts := bearerServerScoped(t, "tok-1", true)
	store := oauth.NewStore(filepath.Join(t.TempDir(), "oauth.json"))
	if err := store.Put("hosted", &oauth.Record{URL: ts.URL, ClientID: "c", TokenURL: ts.URL + "/token", AccessToken: "tok-1",
		Scopes: []string{"read"}, Expiry: time.Now().Add(time.Hour), Saved: time.Now()}); err != nil {
		t.Fatal(err)
	}
	p, _ := startProxyWith(t, testConfig(oauthUpstream(ts.URL)), &Options{OAuth: &oauth.Options{Store: store}})
	_, err := p.pool.CallTool(context.Background(), "hosted", &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "more scope: write") || !strings.Contains(err.Error(), "toolfold login hosted") {
		t.Fatalf("call: %v; want a sign-in for more scope, naming toolfold login", err)
	}
	if st := p.Status()[0]; st.State != StateReady {
		t.Errorf("after the refused call the upstream is %s (%s); want it still ready", st.State, st.Err)
	}
}
