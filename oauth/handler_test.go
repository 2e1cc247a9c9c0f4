package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// fakeAuth is an MCP resource (/mcp) and its authorization server in one
// httptest server: protected-resource and authorization-server metadata,
// dynamic client registration, an authorize endpoint that redirects at
// once (the user consents), and a token endpoint checking PKCE.
type fakeAuth struct {
	t   *testing.T
	srv *httptest.Server

	mu         sync.Mutex
	challenge  string            // the last code_challenge
	codes      map[string]string // code -> scope
	tokens     map[string]string // access token -> scope
	refresh    map[string]string // refresh token -> scope
	n          int
	expiresIn  int                        // seconds; 0: 3600
	need       func(method string) string // the scope a request needs ("" none)
	authorizes []url.Values               // authorize requests' queries
	grants     []string                   // token requests' grant types
	registered []string                   // registered clients' redirect URIs
}

func newFakeAuth(t *testing.T) *fakeAuth {
	f := &fakeAuth{t: t, codes: map[string]string{}, tokens: map[string]string{}, refresh: map[string]string{}}
	f.need = func(string) string { return "mcp:read" }
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.srv.URL + "/mcp", "authorization_servers": []string{f.srv.URL}, "scopes_supported": []string{"mcp:read"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize", "token_endpoint": f.srv.URL + "/token",
			"registration_endpoint": f.srv.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		f.mu.Lock()
		f.registered = append(f.registered, m.RedirectURIs...)
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "client-1", "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.authorizes = append(f.authorizes, q)
		f.challenge = q.Get("code_challenge")
		f.n++
		code := fmt.Sprintf("code-%d", f.n)
		f.codes[code] = q.Get("scope")
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := to.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.grants = append(f.grants, r.Form.Get("grant_type"))
		var scope string
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			s, ok := f.codes[r.Form.Get("code")]
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge || r.Form.Get("resource") != f.srv.URL+"/mcp" {
				w.WriteHeader(http.StatusBadRequest)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(f.codes, r.Form.Get("code"))
			scope = s
		case "refresh_token":
			s, ok := f.refresh[r.Form.Get("refresh_token")]
			if !ok {
				w.WriteHeader(http.StatusBadRequest)
				writeJSON(w, map[string]string{"error": "invalid_grant", "error_description": "secret-looking body"})
				return
			}
			delete(f.refresh, r.Form.Get("refresh_token"))
			scope = s
		}
		f.n++
		at, rt := fmt.Sprintf("at-%d", f.n), fmt.Sprintf("rt-%d", f.n)
		f.tokens[at], f.refresh[rt] = scope, scope
		exp := f.expiresIn
		if exp == 0 {
			exp = 3600
		}
		writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": exp, "refresh_token": rt, "scope": scope})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		meta := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.srv.URL)
		need := f.need(r.Header.Get("X-Method"))
		f.mu.Lock()
		scope, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		f.mu.Unlock()
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:read", `+meta)
			w.WriteHeader(http.StatusUnauthorized)
		case need != "" && !slices.Contains(strings.Fields(scope), need):
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", %s`, need, meta))
			w.WriteHeader(http.StatusForbidden)
		default:
			io.WriteString(w, "ok "+scope)
		}
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// do sends a request as the go-sdk's streamable transport does: the token
// from TokenSource, and on a 401 or 403 one Authorize and one retry.
func do(ctx context.Context, h *Handler, url string) (int, string, error) {
	method := ""
	if u, m, ok := strings.Cut(url, "#"); ok {
		url, method = u, m
	}
	send := func() (*http.Request, *http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		req.Header.Set("X-Method", method)
		ts, err := h.TokenSource(ctx)
		if err != nil {
			return nil, nil, err
		}
		if ts != nil {
			tok, err := ts.Token()
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			} else if !strings.Contains(err.Error(), "invalid_grant") {
				return nil, nil, err
			}
		}
		resp, err := http.DefaultClient.Do(req)
		return req, resp, err
	}
	req, resp, err := send()
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		if err := h.Authorize(ctx, req, resp); err != nil {
			return resp.StatusCode, "", err
		}
		if _, resp, err = send(); err != nil {
			return 0, "", err
		}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// browser opens the URL as a user who consents would: it follows the
// authorization server's redirect to the loopback listener.
func browser(opened *[]string) func(context.Context, string) error {
	var mu sync.Mutex
	return func(ctx context.Context, u string) error {
		mu.Lock()
		*opened = append(*opened, u)
		mu.Unlock()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("the sign-in page answered %s", resp.Status)
		}
		return nil
	}
}

func TestSignInStoreAndReuse(t *testing.T) {
	f := newFakeAuth(t)
	path := filepath.Join(t.TempDir(), "dir", "oauth.json")
	var opened []string
	ctx := context.Background()
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path), Open: browser(&opened)})
	code, body, err := do(ctx, h, f.srv.URL+"/mcp")
	if err != nil || code != 200 || body != "ok mcp:read" {
		t.Fatalf("first request: %d %q %v", code, body, err)
	}
	if len(opened) != 1 {
		t.Fatalf("sign-in pages opened: %d, want 1", len(opened))
	}
	q := f.authorizes[0]
	for k, want := range map[string]string{"code_challenge_method": "S256", "resource": f.srv.URL + "/mcp", "scope": "mcp:read", "client_id": "client-1"} {
		if q.Get(k) != want {
			t.Errorf("authorize %s = %q, want %q", k, q.Get(k), want)
		}
	}
	if len(f.registered) != 1 || !strings.HasPrefix(f.registered[0], "http://127.0.0.1:") {
		t.Errorf("registered redirect URIs %v, want one loopback", f.registered)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("token directory mode %v, want 0700", di.Mode().Perm())
	}

	// A second process (no Open: serve) uses the stored token.
	h2 := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path)})
	if code, _, err := do(ctx, h2, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("with the stored token: %d %v", code, err)
	}
	// ... but not for another URL.
	h3 := New("remote", f.srv.URL+"/other", Settings{}, &Options{Store: NewStore(path)})
	_, _, err = do(ctx, h3, f.srv.URL+"/mcp")
	var login *LoginNeededError
	if !errors.As(err, &login) || !strings.Contains(err.Error(), "toolfold login remote") {
		t.Fatalf("a token stored for another url: %v, want a LoginNeededError naming toolfold login remote", err)
	}
}

func TestNotSignedInNamesLogin(t *testing.T) {
	f := newFakeAuth(t)
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(filepath.Join(t.TempDir(), "oauth.json"))})
	_, _, err := do(context.Background(), h, f.srv.URL+"/mcp")
	var login *LoginNeededError
	if !errors.As(err, &login) || login.Why != "not signed in" {
		t.Fatalf("got %v, want LoginNeededError(not signed in)", err)
	}
	if want := "run `toolfold login remote`"; !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not say %q", err, want)
	}
	if len(f.authorizes) != 0 || len(f.registered) != 0 {
		t.Errorf("a handler without Open started a sign-in")
	}
}

func TestRefreshAheadOfExpiry(t *testing.T) {
	f := newFakeAuth(t)
	f.expiresIn = 2 // seconds: refreshed a quarter of its life ahead
	path := filepath.Join(t.TempDir(), "oauth.json")
	var opened []string
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path), Open: browser(&opened)})
	ctx := context.Background()
	if code, _, err := do(ctx, h, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("sign-in: %d %v", code, err)
	}
	first, _ := NewStore(path).Get("remote")
	time.Sleep(1600 * time.Millisecond) // within the last quarter, before expiry
	if code, _, err := do(ctx, h, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("after the refresh: %d %v", code, err)
	}
	second, _ := NewStore(path).Get("remote")
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Errorf("the token was not refreshed and saved: %s then %s", first.AccessToken, second.AccessToken)
	}
	if !slices.Equal(f.grants, []string{"authorization_code", "refresh_token"}) || len(opened) != 1 {
		t.Errorf("grants %v, sign-ins %d; want a refresh, not a new sign-in", f.grants, len(opened))
	}
}

func TestExpiredRefreshRefusedNeedsLogin(t *testing.T) {
	f := newFakeAuth(t)
	path := filepath.Join(t.TempDir(), "oauth.json")
	st := NewStore(path)
	rec := &Record{URL: f.srv.URL + "/mcp", ClientID: "client-1", TokenURL: f.srv.URL + "/token",
		AccessToken: "at-stale", RefreshToken: "rt-unknown", Expiry: time.Now().Add(-time.Hour), Saved: time.Now().Add(-2 * time.Hour)}
	if err := st.Put("remote", rec); err != nil {
		t.Fatal(err)
	}
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: st})
	_, _, err := do(context.Background(), h, f.srv.URL+"/mcp")
	var login *LoginNeededError
	if !errors.As(err, &login) || !strings.Contains(login.Why, "expired") {
		t.Fatalf("got %v, want a LoginNeededError saying the token expired", err)
	}
	if strings.Contains(err.Error(), "secret-looking") || strings.Contains(err.Error(), "rt-unknown") {
		t.Errorf("the error quotes the token endpoint's body or a token: %v", err)
	}
	// toolfold check reads the stored record: it says the refresh failed
	// and what to do, not "refreshable" (issue 28 item 9).
	saved, err := NewStore(path).Get("remote")
	if err != nil {
		t.Fatal(err)
	}
	state, ok := Status(saved, "remote", rec.URL, time.Now())
	if ok || strings.Contains(state, "refreshable") || !strings.Contains(state, "refreshing it failed") ||
		!strings.Contains(state, "the server refused the refresh token") || !strings.Contains(state, "run `toolfold login remote`") {
		t.Errorf("Status after a refused refresh = %q, %v; want it failed, with the login to run", state, ok)
	}
}

func TestStepUp(t *testing.T) {
	f := newFakeAuth(t)
	f.need = func(m string) string {
		if m == "write" {
			return "mcp:write"
		}
		return "mcp:read"
	}
	path := filepath.Join(t.TempDir(), "oauth.json")
	var opened []string
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path), Open: browser(&opened)})
	ctx := context.Background()
	if code, body, err := do(ctx, h, f.srv.URL+"/mcp"); err != nil || code != 200 || body != "ok mcp:read" {
		t.Fatalf("read: %d %q %v", code, body, err)
	}
	code, body, err := do(ctx, h, f.srv.URL+"/mcp#write")
	if err != nil || code != 200 {
		t.Fatalf("write after step-up: %d %q %v", code, body, err)
	}
	if got := sortedFields(f.authorizes[1].Get("scope")); got != "mcp:read mcp:write" {
		t.Errorf("step-up asked for %q, want the union %q", got, "mcp:read mcp:write")
	}
	rec, _ := NewStore(path).Get("remote")
	if sortedFields(strings.Join(rec.Scopes, " ")) != "mcp:read mcp:write" {
		t.Errorf("stored scopes %v", rec.Scopes)
	}
}

func TestStepUpGivesUp(t *testing.T) {
	f := newFakeAuth(t)
	never := false
	f.need = func(string) string {
		if never {
			return "mcp:admin"
		}
		return "mcp:read"
	}
	var opened []string
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(filepath.Join(t.TempDir(), "oauth.json")), Open: browser(&opened)})
	ctx := context.Background()
	if _, _, err := do(ctx, h, f.srv.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	// The server now wants mcp:admin but never grants it (the fake's
	// tokens carry what was asked, so it names a scope already granted
	// after one step-up): at most one more sign-in, then an error.
	f.mu.Lock()
	f.need = func(string) string { return "mcp:admin" }
	f.mu.Unlock()
	never = true
	for range 5 {
		f.mu.Lock()
		for tok := range f.tokens {
			f.tokens[tok] = "mcp:read" // the server keeps refusing
		}
		f.mu.Unlock()
		_, _, _ = do(ctx, h, f.srv.URL+"/mcp")
	}
	if len(opened) > maxFlows {
		t.Errorf("%d sign-ins for a server that is never satisfied; want at most %d", len(opened), maxFlows)
	}
	_, _, err := do(ctx, h, f.srv.URL+"/mcp")
	if err == nil || !strings.Contains(err.Error(), "gave up") && !strings.Contains(err.Error(), "already granted") {
		t.Errorf("got %v, want an error saying signing in again would not help", err)
	}
}

func TestConfiguredClientAndScopes(t *testing.T) {
	f := newFakeAuth(t)
	var opened []string
	h := New("remote", f.srv.URL+"/mcp", Settings{ClientID: "pre-1", Scopes: []string{"extra"}},
		&Options{Store: NewStore(filepath.Join(t.TempDir(), "oauth.json")), Open: browser(&opened)})
	if code, _, err := do(context.Background(), h, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
	q := f.authorizes[0]
	if q.Get("client_id") != "pre-1" || sortedFields(q.Get("scope")) != "extra mcp:read" {
		t.Errorf("authorize client_id=%q scope=%q; want the configured client and scopes added", q.Get("client_id"), q.Get("scope"))
	}
	if len(f.registered) != 0 {
		t.Errorf("a pre-registered client registered again")
	}
}

func TestCallbackError(t *testing.T) {
	results := make(chan callback, 1)
	srv := httptest.NewServer(callbackHandler("remote", results))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/callback?error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(b), "<b>") {
		t.Errorf("the page does not escape the server's description: %s", b)
	}
	if r := <-results; r.err == nil || !strings.Contains(r.err.Error(), "access_denied") {
		t.Errorf("result %+v", r)
	}
}

// sortedFields is a scope list in sorted order: the go-sdk's scope union
// does not keep one.
func sortedFields(s string) string {
	f := strings.Fields(s)
	slices.Sort(f)
	return strings.Join(f, " ")
}

// Fresh (toolfold login) signs in anew even when a usable token is stored.
func TestFreshSignsInAgain(t *testing.T) {
	f := newFakeAuth(t)
	path := filepath.Join(t.TempDir(), "oauth.json")
	var opened []string
	ctx := context.Background()
	first := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path), Open: browser(&opened)})
	if code, _, err := do(ctx, first, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
	before, _ := NewStore(path).Get("remote")
	again := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(path), Open: browser(&opened), Fresh: true})
	if code, _, err := do(ctx, again, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
	after, _ := NewStore(path).Get("remote")
	if len(opened) != 2 || after.AccessToken == before.AccessToken {
		t.Errorf("sign-ins %d, token %s then %s; want a second sign-in and a new token", len(opened), before.AccessToken, after.AccessToken)
	}
}

// An opener that returns at once (a browser launcher) while the redirect
// comes later: the sign-in completes, without waiting on the opener.
func TestOpenerReturnsBeforeRedirect(t *testing.T) {
	f := newFakeAuth(t)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	launcher := func(_ context.Context, u string) error {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(100 * time.Millisecond)
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	h := New("remote", f.srv.URL+"/mcp", Settings{}, &Options{Store: NewStore(filepath.Join(t.TempDir(), "oauth.json")), Open: launcher})
	// A sign-in that waited on the opener would wait forever: the context
	// is only the hang guard.
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	if code, _, err := do(ctx, h, f.srv.URL+"/mcp"); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
}
