package upstream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
)

// The test binary doubles as a stdio upstream (see TestMain), so the pool
// is tested against real processes.
func TestMain(m *testing.M) {
	if path := os.Getenv(testLegacyEnv); path != "" {
		runLegacyUpstream(path)
	}
	if delay := os.Getenv(testSlowDiscoverEnv); delay != "" {
		runSlowDiscoverUpstream(delay)
	}
	os.Exit(m.Run())
}

// legacyUpstream runs the test binary as the legacy server, logging the
// methods it receives to methods.
func legacyUpstream(name, methods string) config.Upstream {
	return config.Upstream{Name: name, Transport: "stdio", Command: os.Args[0],
		Env: map[string]string{testLegacyEnv: methods}, Cwd: os.TempDir(),
		ConnectTimeout: testlog.Bound(time.Minute), CallTimeout: testlog.Bound(time.Minute)}
}

// startPool starts a pool of ups and waits for their first connection.
func startPool(t *testing.T, opts *Options, ups ...config.Upstream) *Pool {
	t.Helper()
	p := New(ups, opts)
	p.Start(context.Background())
	t.Cleanup(p.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	p.WaitReady(ctx)
	return p
}

// setVar sets a package variable for the duration of a test.
func setVar[T any](t *testing.T, v *T, val T) {
	old := *v
	*v = val
	t.Cleanup(func() { *v = old })
}

// A 2024-11-05 server that drops the server/discover probe connects once
// the bounded probe gives up, and reconnects skip the probe.
func TestLegacyUpstreamThatDropsDiscover(t *testing.T) {
	setVar(t, &discoverTimeout, 200*time.Millisecond)
	log := filepath.Join(t.TempDir(), "methods")
	p := startPool(t, &Options{MinBackoff: 50 * time.Millisecond}, legacyUpstream("old", log))
	st := p.Status()[0]
	if st.State != StateReady || st.Protocol != "2024-11-05" {
		t.Fatalf("status = %s %q (%s), want ready at 2024-11-05", st.State, st.Protocol, st.Err)
	}
	res, err := p.CallTool(context.Background(), "old", &mcp.CallToolParams{Name: "ping_legacy"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "pong" {
		t.Fatalf("call: %v, %v", res, err)
	}
	// Restart it: the second session must not probe again.
	p.byName["old"].close()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for p.Status()[0].Restarts < 1 || p.Status()[0].State != StateReady {
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect: %+v", p.Status()[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, _ := os.ReadFile(log)
	methods := strings.Fields(string(data))
	if n := strings.Count(string(data), "server/discover"); n != 1 {
		t.Errorf("server/discover sent %d times over two sessions, want 1; methods: %v", n, methods)
	}
	if n := strings.Count(string(data), "initialize\n"); n != 2 {
		t.Errorf("initialize sent %d times, want 2; methods: %v", n, methods)
	}
}

func TestListToolsBounds(t *testing.T) {
	// A server whose every page points to another: the pool must give up
	// with a message rather than read forever.
	srv := mcp.NewServer(&mcp.Implementation{Name: "pager"}, &mcp.ServerOptions{PageSize: 1})
	for i := range 3 {
		mcp.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := listTools(ctx, cs)
	if err != nil || len(tools) != 3 {
		t.Fatalf("paged list: %d tools, %v; want 3", len(tools), err)
	}
}

func TestEndlessPaginationIsRefused(t *testing.T) {
	for _, mode := range []string{"endless", "repeat"} {
		t.Run(mode, func(t *testing.T) {
			setVar(t, &discoverTimeout, 200*time.Millisecond)
			up := legacyUpstream("pager", filepath.Join(t.TempDir(), "log"))
			up.Env[testLegacyPagesEnv] = mode
			up.ConnectTimeout = 60 * time.Second
			p := startPool(t, nil, up)
			st := p.Status()[0]
			if st.State != StateDown || !strings.Contains(st.Err, "paginates endlessly") {
				t.Errorf("status = %s: %s; want down, paginates endlessly", st.State, st.Err)
			}
		})
	}
}

// fakeSession is a client session for the scope tests.
type fakeSession struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newFakeSession() *fakeSession {
	ctx, cancel := context.WithCancel(context.Background())
	return &fakeSession{ctx: ctx, cancel: cancel}
}

func (s *fakeSession) Context() context.Context { return s.ctx }
func (s *fakeSession) LogTag() string           { return "s-test" }

type sessionKey struct{}

// sessionHooks find the fakeSession in a call's context, and give each
// connection the discover bound alone.
type sessionHooks struct{}

func (sessionHooks) Chains(e Edge) (sending, receiving []mcp.Middleware) {
	return []mcp.Middleware{e.Discover}, nil
}
func (sessionHooks) ClientOptions(string, *mcp.ClientOptions)              {}
func (sessionHooks) ClientCreated(string, *mcp.Client)                     {}
func (sessionHooks) Connected(context.Context, string, *mcp.ClientSession) {}
func (h sessionHooks) ForSession(Session) Hooks                            { return h }
func (sessionHooks) SessionOf(ctx context.Context) Session {
	if s, ok := ctx.Value(sessionKey{}).(*fakeSession); ok {
		return s
	}
	return nil
}

// TestSessionInstances: a scope: session upstream runs one instance per
// client session that calls it, at most instances of them, refused past
// that with a message that says what to do; EndSession stops a session's
// instance, freeing its place, and a session that ended gets none.
func TestSessionInstances(t *testing.T) {
	setVar(t, &discoverTimeout, 200*time.Millisecond)
	log := filepath.Join(t.TempDir(), "methods")
	up := legacyUpstream("notes", log)
	up.Scope, up.Instances = config.ScopeSession, 2
	p := startPool(t, &Options{Hooks: sessionHooks{}}, up)
	call := func(s *fakeSession) error {
		ctx := context.Background()
		if s != nil {
			ctx = context.WithValue(ctx, sessionKey{}, s)
		}
		_, err := p.CallTool(ctx, "notes", &mcp.CallToolParams{Name: "ping_legacy"})
		return err
	}
	a, b, c := newFakeSession(), newFakeSession(), newFakeSession()
	for _, s := range []*fakeSession{nil, a, b, a} {
		if err := call(s); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.Status()[0].Instances; n != 2 {
		t.Errorf("%d instances for sessions a and b, want 2", n)
	}
	if n := strings.Count(readFile(t, log), "initialize\n"); n != 3 {
		t.Errorf("%d processes initialized, want 3: the shared one, a's and b's", n)
	}
	var ue *UnavailableError
	if err := call(c); !errors.As(err, &ue) || !strings.Contains(err.Error(), "raise instances in proxy.yaml") {
		t.Errorf("a third session past instances: 2: %v", err)
	}
	a.cancel()
	p.EndSession(a)
	if n := p.Status()[0].Instances; n != 1 {
		t.Errorf("%d instances once a ended, want 1 (b's)", n)
	}
	if err := call(a); !errors.As(err, &ue) || !strings.Contains(err.Error(), "the client session has ended") {
		t.Errorf("a call of an ended session: %v", err)
	}
	if err := call(c); err != nil {
		t.Errorf("a third session once a's instance stopped: %v", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
