package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Options configure the handlers of one process.
type Options struct {
	Store *Store // required
	// Open shows the user the authorization URL: it opens a browser, or
	// runs the TOOLFOLD_OAUTH_OPEN command, and returns when that is done
	// (the code arrives on the redirect listener, not from Open). Nil: the
	// handler never signs in by itself (see LoginNeededError).
	Open func(ctx context.Context, url string) error
	// Fresh ignores a stored sign-in: the first request goes without a
	// token and its 401 starts a new sign-in (toolfold login).
	Fresh bool
	// HTTPClient fetches metadata, registers the client and exchanges and
	// refreshes tokens. Nil: http.DefaultClient.
	HTTPClient *http.Client
	Log        *slog.Logger // nil discards
}

// Settings are one upstream's oauth: settings (config.OAuth).
type Settings struct {
	ClientID     string // pre-registered, or the https URL of a client ID metadata document
	ClientSecret string
	Scopes       []string // requested besides those the server asks for
}

// LoginNeededError is Authorize's answer when the user must sign in and the
// handler may not start a sign-in by itself.
type LoginNeededError struct {
	Upstream string
	Why      string // "not signed in", "the server refused the stored token", ...
}

func (e *LoginNeededError) Error() string {
	return fmt.Sprintf("sign-in needed (%s): run `toolfold login %s` in a terminal", e.Why, e.Upstream)
}

// Error is Authorize's failure to sign in (the server refused, the user did
// not finish in time, ...): the upstream is reachable, so a caller should
// not take it for a broken connection.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Retry bound on sign-ins: a server that keeps refusing must not open a
// browser page at every reconnect.
const (
	maxFlows   = 3
	flowWindow = 10 * time.Minute
)

// Handler signs one upstream in; it implements the go-sdk's
// auth.OAuthHandler and lives as long as the upstream (across reconnects).
type Handler struct {
	name, url string
	set       Settings
	opts      Options
	log       *slog.Logger
	client    *http.Client

	mu     sync.Mutex
	src    *source // nil: no token yet
	loaded bool    // the store was read (or Fresh skipped it)
	gen    int     // counts adopted sign-ins, so waiting Authorize calls see one finish
	flows  []time.Time

	flowMu sync.Mutex // one sign-in at a time
}

var _ auth.OAuthHandler = (*Handler)(nil)

// New returns the handler of upstream name, reached at url.
func New(name, url string, set Settings, opts *Options) *Handler {
	h := &Handler{name: name, url: url, set: set, opts: *opts, log: opts.Log, client: opts.HTTPClient}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.log = h.log.With("upstream", name)
	if h.client == nil {
		h.client = http.DefaultClient
	}
	h.loaded = opts.Fresh
	return h
}

// TokenSource returns the upstream's token source, nil before a sign-in.
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		rec, err := h.opts.Store.Get(h.name)
		if err != nil {
			return nil, err
		}
		h.loaded = true
		if rec != nil && rec.URL == h.url {
			h.src = h.newSource(rec)
		}
	}
	if h.src == nil {
		return nil, nil // no Authorization header: the server's 401 starts Authorize
	}
	return h.src, nil
}

// Authorize answers a 401, or a 403 insufficient_scope: it adopts a sign-in
// another process saved meanwhile, or signs in (with Open), or says the
// user must run toolfold login.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	errCode, wanted := bearer(challenges)
	if resp.StatusCode == http.StatusForbidden && errCode != "insufficient_scope" {
		resp.Body.Close()
		return nil // not an authorization matter: the retry's 403 is the answer
	}
	h.mu.Lock()
	gen := h.gen
	var cur *Record
	if h.src != nil {
		cur = h.src.record()
	}
	h.mu.Unlock()

	if resp.StatusCode == http.StatusUnauthorized && h.adoptStored(cur) {
		resp.Body.Close()
		return nil
	}
	why, err := reason(req, resp, cur, wanted)
	switch {
	case err != nil:
		resp.Body.Close()
		return err
	case h.opts.Open == nil:
		resp.Body.Close()
		return &LoginNeededError{Upstream: h.name, Why: why}
	}

	h.flowMu.Lock()
	defer h.flowMu.Unlock()
	if proceed, err := h.claimFlow(gen, why); !proceed {
		resp.Body.Close()
		return err
	}
	h.log.Info("signing in with OAuth", "why", why)
	src, err := h.flow(ctx, req, resp, cur)
	if err != nil {
		return &Error{fmt.Errorf("signing in: %w", err)}
	}
	h.adopt(src)
	return nil
}

// adoptStored adopts a usable token saved meanwhile (toolfold login in a
// terminal while serve runs), unless this is a fresh sign-in.
func (h *Handler) adoptStored(cur *Record) bool {
	if h.opts.Fresh {
		return false
	}
	rec, err := h.opts.Store.Get(h.name)
	if err != nil || rec == nil || rec.URL != h.url || (cur != nil && rec.AccessToken == cur.AccessToken) || expired(rec, time.Now()) {
		return false
	}
	h.adopt(h.newSource(rec))
	return true
}

// reason says why a sign-in is needed, or, for a step-up that cannot
// help, returns an error.
func reason(req *http.Request, resp *http.Response, cur *Record, wanted []string) (string, error) {
	switch {
	case resp.StatusCode == http.StatusForbidden:
		var granted []string
		if cur != nil {
			granted = cur.Scopes
		}
		switch {
		case len(wanted) == 0:
			return "", &Error{errors.New("the server refuses the token for insufficient scope without naming the scope it wants; signing in again would not help")}
		case !addsScope(granted, wanted):
			return "", &Error{fmt.Errorf("the server refuses the token for insufficient scope, asking for %q, which it was already granted; signing in again would not help", strings.Join(wanted, " "))}
		}
		return "the server asks for more scope: " + strings.Join(wanted, " "), nil
	case cur == nil:
		return "not signed in", nil
	case req.Header.Get("Authorization") == "":
		return "the stored token expired and could not be refreshed", nil
	}
	return "the server refused the stored token", nil
}

// claimFlow decides, holding flowMu, whether this request signs in: not
// when another request's sign-in finished while it waited (proceed false,
// nil: retry), nor past the bound on sign-ins (an error).
func (h *Handler) claimFlow(gen int, why string) (proceed bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen != gen {
		return false, nil
	}
	now := time.Now()
	h.flows = slices.DeleteFunc(h.flows, func(t time.Time) bool { return now.Sub(t) > flowWindow })
	if len(h.flows) >= maxFlows {
		return false, &Error{fmt.Errorf("gave up signing in: %d sign-ins within %s did not satisfy the server (%s); run `toolfold login %s` to try again", maxFlows, flowWindow, why, h.name)}
	}
	h.flows = append(h.flows, now)
	return true, nil
}

// adopt makes src the token source in use.
func (h *Handler) adopt(src *source) {
	h.mu.Lock()
	h.src, h.loaded = src, true
	h.gen++
	h.mu.Unlock()
}

// flow runs one authorization-code sign-in with the go-sdk's handler, the
// code arriving on a loopback listener of its own.
func (h *Handler) flow(ctx context.Context, req *http.Request, resp *http.Response, cur *Record) (*source, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("opening the loopback redirect listener: %w", err)
	}
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	results := make(chan callback, 1)
	srv := &http.Server{Handler: callbackHandler(h.name, results), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	var made *source
	cfg := h.codeConfig(redirect, results, cur, &made)
	ach, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if err := ach.Authorize(ctx, req, resp); err != nil { // closes resp.Body
		return nil, clean(err)
	}
	if made == nil {
		return nil, errors.New("the sign-in finished without a token")
	}
	return made, nil
}

// codeConfig configures the go-sdk's authorization-code handler for one
// sign-in: the redirect, the client (configured, else registered), the
// scopes (granted so far, configured, and asked for), and where the token
// goes (the store, and *made).
func (h *Handler) codeConfig(redirect string, results <-chan callback, cur *Record, made **source) *auth.AuthorizationCodeHandlerConfig {
	var granted []string
	if cur != nil {
		granted = cur.Scopes
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:  []string{redirect},
				ClientName:    "toolfold",
				ClientURI:     "https://github.com/toolfold/toolfold",
				GrantTypes:    []string{"authorization_code", "refresh_token"},
				ResponseTypes: []string{"code"},
			},
		},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return h.fetch(ctx, args.URL, results)
		},
		ScopeFilter: func(discovered []string) []string {
			return union(granted, h.set.Scopes, discovered)
		},
		RequestRefreshToken: true,
		Client:              h.client,
		NewTokenSource: func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			rec := &Record{
				URL:          h.url,
				ClientID:     c.ClientID,
				ClientSecret: c.ClientSecret,
				AuthURL:      c.Endpoint.AuthURL,
				TokenURL:     c.Endpoint.TokenURL,
				AuthStyle:    int(c.Endpoint.AuthStyle),
				Scopes:       grantedScopes(tok, c.Scopes),
			}
			setToken(rec, tok, time.Now())
			if err := h.opts.Store.Put(h.name, rec); err != nil {
				h.log.Warn("the OAuth token is not kept for the next start", "err", err)
			}
			*made = h.newSource(rec)
			return *made, nil
		},
	}
	switch id := h.set.ClientID; {
	case strings.HasPrefix(id, "https://"):
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: id}
	case id != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: id}
		if h.set.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.set.ClientSecret}
		}
	}
	return cfg
}

// callback is what the authorization server's redirect brought.
type callback struct {
	code, state, iss string
	err              error
}

// callbackHandler receives the redirect and tells the user's browser how
// it went.
func callbackHandler(name string, results chan<- callback) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		res := callback{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
		msg := "toolfold: signed in to " + name + ". You can close this tab."
		switch e := q.Get("error"); {
		case e != "":
			desc := q.Get("error_description")
			res.err = fmt.Errorf("the authorization server refused: %s %s", e, desc)
			msg = "toolfold: signing in to " + name + " failed: " + e + " " + desc
		case res.code == "":
			res.err = errors.New("the redirect brought no authorization code")
			msg = "toolfold: signing in to " + name + " failed: no authorization code"
		}
		select {
		case results <- res:
		default: // only the first redirect counts
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>toolfold</title><p>%s</p>\n", html.EscapeString(msg))
	})
	return mux
}

// fetch shows the user the authorization URL and waits for the redirect.
func (h *Handler) fetch(ctx context.Context, url string, results <-chan callback) (*auth.AuthorizationResult, error) {
	octx, cancel := context.WithCancel(ctx)
	opened := make(chan error, 1)
	go func() { opened <- h.opts.Open(octx, url) }()
	finish := func() {
		// The opener (a browser launcher, or a command that fetches the
		// URL) has a moment to end by itself, then is stopped.
		if opened == nil { // it has ended
			cancel()
			return
		}
		select {
		case <-opened:
		case <-time.After(5 * time.Second):
			cancel()
			<-opened
		}
		cancel()
	}
	got := func(res callback) (*auth.AuthorizationResult, error) {
		finish()
		if res.err != nil {
			return nil, res.err
		}
		return &auth.AuthorizationResult{Code: res.code, State: res.state, Iss: res.iss}, nil
	}
	for {
		select {
		case res := <-results:
			return got(res)
		case err := <-opened:
			opened = nil // done; the code comes through the redirect
			if err != nil {
				select {
				case res := <-results: // it came all the same
					return got(res)
				default:
				}
				cancel()
				return nil, fmt.Errorf("showing the sign-in page: %w", err)
			}
		case <-ctx.Done():
			cancel()
			if opened != nil {
				<-opened
			}
			return nil, fmt.Errorf("no sign-in arrived in time (%w)", ctx.Err())
		}
	}
}

// bearer returns the error code and scopes of the Bearer challenge.
func bearer(cs []oauthex.Challenge) (errCode string, scopes []string) {
	for _, c := range cs {
		if c.Scheme == "bearer" {
			return c.Params["error"], strings.Fields(c.Params["scope"])
		}
	}
	return "", nil
}

// addsScope reports whether wanted names a scope not in granted.
func addsScope(granted, wanted []string) bool {
	for _, s := range wanted {
		if !slices.Contains(granted, s) {
			return true
		}
	}
	return false
}

// union returns the scopes of every list, each once, in order.
func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// grantedScopes are the scopes the token response names, else those asked.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}

// clean drops what an error from the token endpoint may quote of its
// response body, keeping the status and the OAuth error code.
func clean(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	msg := "the token endpoint refused"
	if re.Response != nil {
		msg += " (" + re.Response.Status + ")"
	}
	if re.ErrorCode != "" {
		msg += ": " + re.ErrorCode
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
	}
	return &refusedError{msg}
}

// refusedError is a token endpoint's refusal, without its response body.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }
