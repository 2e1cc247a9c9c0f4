package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/oauth"
)

// Upstream states, as `toolfold check` and search results show them.
const (
	StateConnecting = "connecting"
	StateReady      = "ready"
	StateDown       = "down"
	StateDisabled   = "disabled"
)

// Backoff between reconnection attempts of a failed or crashed upstream:
// the first wait (Options.MinBackoff overrides it), doubled up to the last.
const (
	backoffMin = 500 * time.Millisecond
	backoffMax = 30 * time.Second
)

// upstream is one server behind the proxy and its supervisor: it connects,
// lists tools, re-lists them on notifications/tools/list_changed, and
// reconnects with backoff when the connection fails or the process dies.
type upstream struct {
	cfg      config.Upstream
	log      *slog.Logger
	version  string
	onChange func()              // called after tools or state change; must not block long
	hooks    Hooks               // Options.Hooks, or a session's (scope.go); nil: none
	scrub    func(string) string // Options.Scrub; nil: none
	// backoffMin is the first wait before reconnecting (Options.MinBackoff).
	backoffMin time.Duration
	timeouts   *callDeadlines // call_timeout for every tool call (deadline.go)
	auth       *oauth.Handler // signs in to an HTTP upstream with oauth: settings; nil: none
	cached     []*mcp.Tool    // its tools when last connected (Pool.SetCached); nil: none
	// wake starts it, for an upstream that starts on its first call
	// (Pool.SetStartOnCall); nil: started by Pool.Start.
	wake    func()
	started bool // guarded by the pool's startMu

	relist    chan struct{}
	firstDone chan struct{}

	// discover is the server/discover probe's state (discover.go).
	discover discoverState

	mu           sync.Mutex
	cs           *mcp.ClientSession
	tools        []*mcp.Tool
	state        string
	err          error
	protocol     string
	serverInfo   *mcp.Implementation
	instructions string
	connectTime  time.Duration
	restarts     int
	stdio        *stdioTransport
}

func newUpstream(cfg config.Upstream, log *slog.Logger, version string, onChange func()) *upstream {
	u := &upstream{
		cfg:        cfg,
		backoffMin: backoffMin,
		log:        log.With("upstream", cfg.Name),
		version:    version,
		onChange:   onChange,
		timeouts:   newCallDeadlines(cfg.CallTimeout),
		relist:     make(chan struct{}, 1),
		firstDone:  make(chan struct{}),
		state:      StateConnecting,
	}
	if cfg.Disabled {
		u.state = StateDisabled
		close(u.firstDone)
	}
	return u
}

// run supervises the upstream until ctx ends.
func (u *upstream) run(ctx context.Context) {
	backoff := u.backoffMin
	first := true
	for {
		start := time.Now()
		cs, err := u.connect(ctx)
		// A failed connect is recorded before firstDone closes, so
		// WaitReady never returns while the state still says connecting.
		connectFailed := err != nil && ctx.Err() == nil
		if connectFailed {
			u.setDown(err)
		}
		if first {
			close(u.firstDone)
			first = false
		}
		if ctx.Err() != nil {
			if cs != nil {
				_ = cs.Close()
			}
			return
		}
		if err == nil {
			err = u.serve(ctx, cs)
			if ctx.Err() != nil {
				return
			}
			if time.Since(start) > time.Minute {
				backoff = u.backoffMin
			}
		}
		if !connectFailed {
			u.setDown(err)
		}
		u.log.Warn("upstream down; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, backoffMax)
		u.mu.Lock()
		u.restarts++
		u.mu.Unlock()
	}
}

// connect opens a session and lists the tools, within the connect timeout.
// A server that answered the server/discover probe after discoverTimeout
// is connected again at once, the probe given the whole connect timeout
// (discover.go).
func (u *upstream) connect(ctx context.Context) (*mcp.ClientSession, error) {
	if u.cfg.OAuth != nil && u.auth == nil {
		return nil, errors.New("oauth: is set but this toolfold command keeps no OAuth tokens")
	}
	ctx, cancel := context.WithTimeout(ctx, u.cfg.ConnectTimeout)
	defer cancel()
	u.discover.timedOut.Store(false)
	u.discover.handshakeFailed.Store(false)
	cs, err := u.dial(ctx)
	if err != nil && u.discover.retry(ctx) {
		u.log.Info("upstream answered server/discover after " + discoverTimeout.String() + " (a slow start?) and took it as its initialize; connecting again, waiting for the probe's answer")
		cs, err = u.dial(ctx)
	}
	return cs, err
}

// dial is one attempt of connect.
func (u *upstream) dial(ctx context.Context) (*mcp.ClientSession, error) {
	start := time.Now()
	order := newNoteOrder() // per connection: see order.go
	tr, stdio := u.transport(order)
	opts := &mcp.ClientOptions{
		Logger: u.log,
		// No roots capability by default: the SDK would otherwise
		// advertise roots and answer roots/list with an empty list. The
		// hooks declare roots and answer with the real client's.
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case u.relist <- struct{}{}:
			default:
			}
		},
	}
	if u.hooks != nil {
		u.hooks.ClientOptions(u.cfg.Name, opts)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold", Version: u.version}, opts)
	u.installChains(client, order) // the owner's chains (hooks.go)
	if u.hooks != nil {
		u.hooks.ClientCreated(u.cfg.Name, client)
	}
	cs, err := client.Connect(ctx, tr, u.sessionOptions())
	if err != nil {
		u.discover.handshakeFailed.Store(true)
		err = u.explain("connect", ctx, err, stdio)
		if stdio != nil {
			stdio.kill()
		}
		return nil, err
	}
	tools, err := listTools(ctx, cs)
	if err != nil {
		err = u.explain("tools/list", ctx, err, stdio)
		_ = cs.Close()
		if stdio != nil {
			stdio.kill()
		}
		return nil, err
	}
	init := cs.InitializeResult()
	u.mu.Lock()
	u.cs, u.tools, u.state, u.err = cs, tools, StateReady, nil
	u.stdio = stdio
	u.connectTime = time.Since(start)
	if init != nil {
		u.protocol, u.serverInfo, u.instructions = init.ProtocolVersion, init.ServerInfo, init.Instructions
	}
	u.mu.Unlock()
	if u.hooks != nil {
		u.hooks.Connected(ctx, u.cfg.Name, cs)
	}
	u.log.Info("upstream ready", "tools", len(tools), "protocol", u.protocol, "took", u.connectTime.Round(time.Millisecond))
	u.onChange()
	return cs, nil
}

// sessionOptions skips the server/discover probe when reconnecting to an
// upstream that already answered with a pre-2026 protocol version: it will
// not have learned a newer one by restarting, and the probe costs a round
// trip (or, for servers that drop it, discoverTimeout).
func (u *upstream) sessionOptions() *mcp.ClientSessionOptions {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.protocol != "" && u.protocol < "2026-07-28" {
		return &mcp.ClientSessionOptions{ProtocolVersion: u.protocol}
	}
	return nil
}

// serve waits for the session to end, re-listing tools when asked.
func (u *upstream) serve(ctx context.Context, cs *mcp.ClientSession) error {
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	for {
		select {
		case <-ctx.Done():
			_ = cs.Close()
			<-ended
			return ctx.Err()
		case err := <-ended:
			_ = cs.Close() // reap the process group of a crashed upstream
			return u.lost(err)
		case <-u.relist:
			lctx, cancel := context.WithTimeout(ctx, u.cfg.ConnectTimeout)
			tools, err := listTools(lctx, cs)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					u.log.Warn("re-listing tools failed", "err", err)
				}
				continue
			}
			u.mu.Lock()
			u.tools = tools
			u.mu.Unlock()
			u.log.Info("tools changed", "tools", len(tools))
			u.onChange()
		}
	}
}

// lost explains why an established session ended.
func (u *upstream) lost(err error) error {
	u.mu.Lock()
	stdio := u.stdio
	u.mu.Unlock()
	msg := "connection lost"
	if stdio != nil {
		if st := stdio.ExitState(); st != "" {
			msg = "process " + st
		}
		if tail := stdio.LastStderr(); tail != "" {
			msg += "; stderr: " + tail
		}
	} else if err != nil {
		msg += ": " + err.Error()
	}
	return errors.New(msg)
}

// explain turns a connection failure into a message that says what to fix.
func (u *upstream) explain(step string, ctx context.Context, err error, stdio *stdioTransport) error {
	var login *oauth.LoginNeededError
	if errors.As(err, &login) {
		return login // says what to do; the transport's wrapping adds nothing
	}
	var signIn *oauth.Error
	if errors.As(err, &signIn) {
		return fmt.Errorf("%s: %w", step, signIn)
	}
	var b strings.Builder
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Fprintf(&b, "%s: no answer within %s (raise connect_timeout if the server is slow to start)", step, u.cfg.ConnectTimeout)
	} else {
		fmt.Fprintf(&b, "%s: %v", step, err)
	}
	if stdio == nil && u.cfg.OAuth == nil && (strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), "Forbidden")) {
		fmt.Fprintf(&b, "; the server wants credentials: add `oauth: {}` to this upstream for toolfold to sign in with OAuth (then run `toolfold login %s`), or put a token it accepts in its headers: (Authorization: \"Bearer ${TOKEN}\")", u.cfg.Name)
	}
	if stdio != nil {
		if st := stdio.ExitState(); st != "" {
			fmt.Fprintf(&b, "; process %s", st)
		}
		if tail := stdio.LastStderr(); tail != "" {
			fmt.Fprintf(&b, "; stderr: %s", tail)
		}
	}
	return errors.New(b.String())
}

func (u *upstream) transport(order *noteOrder) (mcp.Transport, *stdioTransport) {
	if u.cfg.Transport == "http" {
		t := &mcp.StreamableClientTransport{
			Endpoint:     u.cfg.URL,
			HTTPClient:   &http.Client{Transport: headerTransport{u.cfg.Headers, order}},
			MaxEventSize: maxUpstreamFrame,
		}
		if u.auth != nil {
			t.OAuthHandler = u.auth
		}
		return t, nil
	}
	st := newStdioTransport(u.cfg, u.log)
	st.order = order
	st.scrub = u.scrub
	return st, st
}

func (u *upstream) setDown(err error) {
	u.mu.Lock()
	u.cs = nil
	u.state = StateDown
	u.err = err
	u.mu.Unlock()
	u.onChange()
}

func (u *upstream) close() {
	u.mu.Lock()
	cs := u.cs
	u.cs = nil
	u.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// callParams invokes one tool with the call timeout, with the request's
// params as the client sent them (passthrough keeps _meta, such as a
// progress token).
func (u *upstream) callParams(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	tool := params.Name
	u.mu.Lock()
	cs, state, err := u.cs, u.state, u.err
	u.mu.Unlock()
	if cs == nil && state == StateConnecting && u.cached != nil {
		// A tool found in the cached catalog before the upstream's first
		// connection: start it if it waits for a call, and wait for it
		// (bounded by connect_timeout).
		if u.wake != nil {
			u.wake()
		}
		select {
		case <-u.firstDone:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		u.mu.Lock()
		cs, state, err = u.cs, u.state, u.err
		u.mu.Unlock()
	}
	if cs == nil {
		reason := state
		if err != nil {
			reason = err.Error()
		}
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: reason}
	}
	cctx, cancel := u.timeouts.start(ctx)
	defer cancel()
	res, err := cs.CallTool(cctx, params)
	var login *oauth.LoginNeededError
	var signIn *oauth.Error
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &login): // a step-up the user must do
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: login.Error()}
	case errors.As(err, &signIn): // not a broken connection: keep the session
		return nil, fmt.Errorf("upstream %q: %s: %v", u.cfg.Name, tool, signIn)
	case cctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("upstream %q did not answer %s within %s (call_timeout)", u.cfg.Name, tool, u.cfg.CallTimeout)
	case Disconnected(err):
		if unreachable(err) {
			// The go-sdk keeps an HTTP session open when a request cannot
			// be delivered; end it so run reconnects with backoff, as it
			// does for a stdio upstream that died.
			_ = cs.Close()
		}
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: "disconnected during the call"}
	case malformed(err):
		return nil, fmt.Errorf("upstream %q sent a message that is not valid JSON while answering %s (%v); the upstream is faulty, retry or report it to its authors", u.cfg.Name, tool, err)
	}
	return nil, fmt.Errorf("upstream %q: %s: %w", u.cfg.Name, tool, err)
}

// Bounds on one upstream's tool list: an upstream that paginates endlessly
// or lists absurdly many tools must not exhaust the proxy's memory.
const (
	maxTools = 10000
	maxPages = 1000
)

// listTools reads every page of tools/list, within the bounds above.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	seen := map[string]bool{}
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		tools = append(tools, res.Tools...)
		switch {
		case res.NextCursor == "":
			return tools, nil
		case len(tools) > maxTools:
			return nil, fmt.Errorf("tools/list: over %d tools; toolfold refuses an upstream that large", maxTools)
		case page >= maxPages || seen[res.NextCursor]:
			return nil, fmt.Errorf("tools/list: the upstream paginates endlessly (%d pages; cursor %.40q repeats or never ends)", page, res.NextCursor)
		}
		seen[res.NextCursor] = true
		params.Cursor = res.NextCursor
	}
}
