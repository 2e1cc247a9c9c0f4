package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if os.Getenv(testUpstreamEnv) != "" {
		runTestUpstream()
	}
	if path := os.Getenv(testRogueEnv); path != "" {
		runRogueUpstream(path)
	}
	if os.Getenv(testChattyEnv) != "" {
		runChattyUpstream()
	}
	if os.Getenv(testStatefulEnv) != "" {
		runStatefulUpstream()
	}
	if dir := os.Getenv(testAskerEnv); dir != "" {
		runAskerUpstream(dir)
	}
	if line := os.Getenv(testStderrExitEnv); line != "" {
		fmt.Fprintln(os.Stderr, line)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// stdioUpstream runs the test binary as a stdio MCP server.
func stdioUpstream(name string) config.Upstream {
	return config.Upstream{
		Name: name, Transport: "stdio", Command: os.Args[0],
		Env: map[string]string{testUpstreamEnv: "1"}, Cwd: os.TempDir(),
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout,
	}
}

// httpUpstream serves server over streamable HTTP on loopback.
func httpUpstream(t testing.TB, name string, server *mcp.Server) config.Upstream {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(ts.Close)
	return config.Upstream{
		Name: name, Transport: "http", URL: ts.URL,
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout,
	}
}

// upstreamTimeout is the test upstreams' connect and call timeout: only a
// hang reaches it (the stdio upstream is this race-built test binary,
// slow to start on a loaded machine). Tests of the timeouts set their own.
var upstreamTimeout = testlog.Bound(time.Minute)

func testConfig(ups ...config.Upstream) *config.Config {
	return &config.Config{
		Upstreams: ups,
		Sandbox: config.Sandbox{Limits: sandbox.Limits{
			Timeout: testlog.Bound(time.Minute), CPUTime: 10 * time.Second, MemoryBytes: 512 << 20,
			OutputBytes: 64 << 10, MaxToolCalls: 50, MaxConcurrency: 4, MaxFrameBytes: 16 << 20,
			OpenFiles: 64, FileBytes: 64 << 20, Processes: 64,
		}},
	}
}

// startProxy starts a proxy and a client session connected to it in memory.
func startProxy(t testing.TB, cfg *config.Config) (*Proxy, *mcp.ClientSession) {
	t.Helper()
	return startProxyWith(t, cfg, nil)
}

// startProxyWith is startProxy with options; the Lua runner re-executes
// the test binary unless opts names runners.
func startProxyWith(t testing.TB, cfg *config.Config, opts *Options) (*Proxy, *mcp.ClientSession) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Runners == nil {
		o.Runners = []sandbox.Runner{sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]})}
	}
	p := New(cfg, &o)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	p.Start(context.Background())
	p.WaitReady(ctx)
	t.Cleanup(p.Close)
	return p, connectClient(t, p.Server())
}

// connectClient opens a client session to srv in memory; both ends close
// at the test's end.
func connectClient(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func runLua(t *testing.T, cs *mcp.ClientSession, code string) (string, bool) {
	t.Helper()
	return callText(t, cs, "run_script", map[string]any{"code": code})
}

func TestAdvertisesExactlyTwoCompactTools(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc"), httpUpstream(t, "remote", newTestServer())))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "run_script,search_tools" && strings.Join(names, ",") != "search_tools,run_script" {
		t.Fatalf("tools = %v, want search_tools and run_script", names)
	}
	b, _ := json.Marshal(res.Tools)
	if len(b) > 2500 {
		t.Errorf("advertised tools are %d bytes, want <= 2500:\n%s", len(b), b)
	}
	for _, want := range []string{"calc (crash, echo, text; 5 tools)", "remote (crash, echo, text; 5 tools)", "output, no network."} {
		if !strings.Contains(string(b), want) {
			t.Errorf("descriptions do not mention %q:\n%s", want, b)
		}
	}
}

func TestSearchFindsUpstreamTool(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	text, isErr := callText(t, cs, "search_tools", map[string]any{"query": "sum of two numbers", "detail": "name"})
	if isErr || !strings.HasPrefix(text, "calc.add") {
		t.Errorf("search = %q (isError %v), want calc.add first", text, isErr)
	}
}

func TestRunScriptAcrossServers(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc"), httpUpstream(t, "remote", newTestServer())))
	text, isErr := runLua(t, cs, `
local a = tools.calc.add{a = 2, b = 3}
local e = call("remote.echo-text", {text = "n=" .. a.sum})
print(e)
return {sum = a.sum, echoed = tools.remote.echo_text{text = "x"}}`)
	if isErr {
		t.Fatalf("script failed: %s", text)
	}
	for _, want := range []string{"n=5\n", `=> {"echoed":"x","sum":5}`, "[toolfold: 3 tool calls"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestRunScriptToolErrorIsCatchable(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	text, isErr := runLua(t, cs, `local ok, err = pcall(function() return tools.calc.fail{} end)
print(ok, err)`)
	if isErr || !strings.Contains(text, "false") || !strings.Contains(text, "disk quota exceeded on volume 7") {
		t.Errorf("got %q (isError %v); want the upstream message caught by pcall", text, isErr)
	}
	text, isErr = runLua(t, cs, "\ntools.calc.fail{}")
	if !isErr || !strings.Contains(text, "script:2:") || !strings.Contains(text, "disk quota exceeded") {
		t.Errorf("uncaught: got %q (isError %v); want script:2: with the upstream message", text, isErr)
	}
}

func TestUnknownToolSuggests(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	text, isErr := runLua(t, cs, `return tools.calc.addd{a=1, b=2}`)
	if !isErr || !strings.Contains(text, "unknown tool") || !strings.Contains(text, "calc.add") {
		t.Errorf("got %q (isError %v); want unknown tool with calc.add suggested", text, isErr)
	}
}

func TestMalformedRequestsAreProtocolErrors(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"run_script", map[string]any{}},
		{"run_script", map[string]any{"code": "return 1", "language": "cobol"}},
		{"run_script", map[string]any{"code": "return 1", "bogus": 1}},
		{"search_tools", map[string]any{"query": ""}},
		{"search_tools", map[string]any{"query": "x", "detail": "everything"}},
	} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: err = %v, want invalid params", tc.tool, tc.args, err)
		}
	}
}

func TestCrashedUpstreamRestarts(t *testing.T) {
	setVar(t, &reconnectBackoff, 50*time.Millisecond)
	p, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	text, isErr := runLua(t, cs, `local ok, err = pcall(function() return tools.calc.crash{} end) print(err)`)
	if isErr || !strings.Contains(text, `upstream "calc" is unavailable (disconnected during the call)`) {
		t.Fatalf("crash call: %q; want the script to catch an unavailable error", text)
	}
	// The next call either finds the server down (with a clear message) or
	// restarted; within a few seconds it must be back.
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		text, isErr = runLua(t, cs, `return tools.calc.add{a=1, b=1}`)
		if !isErr {
			break
		}
		if !strings.Contains(text, `upstream "calc" is unavailable`) {
			t.Fatalf("call after crash: %q; want an unavailable error naming calc", text)
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream did not come back: %q", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := p.Status()[0]; st.Restarts < 1 {
		t.Errorf("restarts = %d, want >= 1", st.Restarts)
	}
}

func TestToolListChangedIsFollowed(t *testing.T) {
	srv := newTestServer()
	_, cs := startProxy(t, testConfig(httpUpstream(t, "remote", srv)))
	mcp.AddTool(srv, &mcp.Tool{Name: "translate_klingon", Description: "Translate English text into Klingon."},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "nuqneH"}}}, nil, nil
		})
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		text, _ := callText(t, cs, "search_tools", map[string]any{"query": "klingon", "detail": "name"})
		if strings.HasPrefix(text, "remote.translate_klingon") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new tool not found after list_changed: %q", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCallTimeout(t *testing.T) {
	up := stdioUpstream("calc")
	up.CallTimeout = 300 * time.Millisecond
	_, cs := startProxy(t, testConfig(up))
	text, isErr := runLua(t, cs, `return tools.calc.sleep{seconds = 30}`)
	if !isErr || !strings.Contains(text, "call_timeout") {
		t.Errorf("got %q (isError %v); want a call_timeout error", text, isErr)
	}
}

func TestBrokenUpstreamDoesNotStopOthers(t *testing.T) {
	broken := config.Upstream{Name: "broken", Transport: "stdio", Command: "/nonexistent/mcp-server",
		Cwd: os.TempDir(), ConnectTimeout: 5 * time.Second, CallTimeout: 5 * time.Second}
	p, cs := startProxy(t, testConfig(broken, stdioUpstream("calc")))
	st := p.Status()
	if st[0].State != StateDown || !strings.Contains(st[0].Err, "/nonexistent/mcp-server") {
		t.Errorf("broken status = %+v", st[0])
	}
	if st[1].State != StateReady {
		t.Errorf("calc status = %+v", st[1])
	}
	text, isErr := runLua(t, cs, `return tools.calc.add{a=1, b=2}`)
	if isErr || !strings.Contains(text, `=> {"sum":3}`) {
		t.Errorf("calc call: %q", text)
	}
	text, isErr = runLua(t, cs, `return tools.broken.anything{}`)
	if !isErr || !strings.Contains(text, `upstream "broken" is unavailable`) {
		t.Errorf("call to the broken server: %q; want it named unavailable", text)
	}
}

func TestScriptValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"structured", &mcp.CallToolResult{StructuredContent: map[string]any{"a": 1}, Content: []mcp.Content{&mcp.TextContent{Text: "ignored"}}}, `{"a":1}`},
		{"json text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ` [1, 2] `}}}, `[1, 2]`},
		{"plain text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, `"hello"`},
		{"two texts", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, `"a\nb"`},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 10)}}}, `[{"mime":"image/png","size":10,"type":"image"}]`},
		{"empty", &mcp.CallToolResult{}, `""`},
	} {
		got, err := scriptValue(tc.res)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestCheckListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:0", "", true},
		{"localhost:8080", "", true},
		{"[::1]:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{"0.0.0.0:8080", "s3cret", true},
		{"8080", "", false},
	} {
		err := CheckListenAddr(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListenAddr(%q, %q) = %v, want ok=%v", tc.addr, tc.token, err, tc.ok)
		}
	}
}

func TestHTTPBearerToken(t *testing.T) {
	p := New(testConfig(), nil)
	ts := httptest.NewServer(p.HTTPHandler("s3cret"))
	defer ts.Close()
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"bearer wrong", http.StatusUnauthorized},
		{"Basic s3cret", http.StatusUnauthorized},
		{"Bearers3cret", http.StatusUnauthorized},
		// RFC 7235: the scheme is case-insensitive, and 1*SP separates it
		// from the token. 0: anything but 401 (the body is no MCP request).
		{"bearer s3cret", 0},
		{"BEARER s3cret", 0},
		{"Bearer  s3cret", 0},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{}`))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if tc.want == 0 && resp.StatusCode == http.StatusUnauthorized || tc.want != 0 && resp.StatusCode != tc.want {
			t.Errorf("auth %q: status %d, want %d (0: not 401)", tc.auth, resp.StatusCode, tc.want)
		}
	}
	// With the token, a real client session works.
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: withHeaders{"Authorization": "Bearer s3cret"}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect with token: %v", err)
	}
	cs.Close()
}

func TestNameKeywords(t *testing.T) {
	tools := func(names ...string) []*mcp.Tool {
		var ts []*mcp.Tool
		for _, n := range names {
			ts = append(ts, &mcp.Tool{Name: n})
		}
		return ts
	}
	for _, tc := range []struct {
		tools []*mcp.Tool
		want  string
	}{
		{tools("read_file", "write_file", "list_directory", "create_directory", "move_file", "search_files"), "file, directory"},
		{tools("create_entities", "delete_entities", "add_observations", "create_relations", "read_graph", "open_nodes"), "entity, observation, relation"},
		{tools("getPullRequest", "listPullRequests", "createIssue"), "pull, request, issue"},
		{nil, ""},
	} {
		if got := nameKeywords(tc.tools, 3); got != tc.want {
			t.Errorf("nameKeywords(%v) = %q, want %q", tc.tools, got, tc.want)
		}
	}
}

// Shutdown cancels a running script instead of waiting for it.
func TestShutdownCancelsRunningScript(t *testing.T) {
	cfg := testConfig()
	cfg.Sandbox.Timeout = 5 * time.Minute
	p, cs := startProxy(t, cfg)
	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": "while true do end"}})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- res.Content[0].(*mcp.TextContent).Text
	}()
	time.Sleep(300 * time.Millisecond) // let the script start
	p.Shutdown()
	select {
	case got := <-done:
		if !strings.Contains(got, "cancel") {
			t.Errorf("run after Shutdown: %q, want a cancellation", got)
		}
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatalf("run_script still running %v after Shutdown", testlog.Bound(time.Minute))
	}
}

// withHeaders is an HTTP client transport that adds headers to each
// request.
type withHeaders map[string]string

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// setVar sets a package variable for the duration of a test.
func setVar[T any](t *testing.T, v *T, val T) {
	old := *v
	*v = val
	t.Cleanup(func() { *v = old })
}

// TestSandboxDefaultsAgree: a config that sets no limits runs scripts
// under sandbox.DefaultLimits, which config takes rather than copies.
func TestSandboxDefaultsAgree(t *testing.T) {
	got := (&Proxy{cfg: &config.Config{Sandbox: config.DefaultSandbox}}).limits()
	if diff := cmp.Diff(sandbox.DefaultLimits, got); diff != "" {
		t.Errorf("config.DefaultSandbox and sandbox.DefaultLimits differ (-sandbox +config):\n%s", diff)
	}
}
