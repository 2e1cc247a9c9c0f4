package proxy

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
)

// TestMiddlewareOnlyInChain: chain.go is the only file of the module that
// registers middleware of its own; package upstream registers, in one
// function, the chains chain.go hands it (upstream.Hooks.Chains). The
// go-sdk wraps each later registration outside the earlier ones, so one
// made anywhere else reorders a chain.
func TestMiddlewareOnlyInChain(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var outside []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			allowed := rel == filepath.Join("proxy", "chain.go")
			if fn, ok := decl.(*ast.FuncDecl); ok && rel == filepath.Join("upstream", "hooks.go") && fn.Name.Name == "installChains" {
				allowed = true
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if ok && !allowed && regexp.MustCompile(`^Add[A-Za-z]*Middleware$`).MatchString(sel.Sel.Name) {
					outside = append(outside, fset.Position(sel.Pos()).String())
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outside) > 0 {
		t.Errorf("middleware registered outside proxy/chain.go (declare it in chain.go's chains instead):\n%s", strings.Join(outside, "\n"))
	}
}

// TestChainOrder: the order a request really meets the middleware in, on
// both edges, is the order chain.go declares.
func TestChainOrder(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // edge/method -> entries, in order
	chainProbe = func(edge, name, method string) {
		mu.Lock()
		defer mu.Unlock()
		seen[edge+" "+method] = append(seen[edge+" "+method], name)
	}
	t.Cleanup(func() { chainProbe = nil })
	up := newLeakyServer()
	cfg := testConfig(httpUpstream(t, "crm", up))
	cfg.Expose.Mode = config.ExposePassthrough
	_, cs := startProxy(t, cfg)
	mu.Lock()
	clear(seen)
	mu.Unlock()
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "crm://people/ann"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whois", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string][]string{
		"client resources/read":   {"recover", "trace", "log", "session", "pii", "forward"},
		"upstream resources/read": {"track", "order", "trace", "log", "discover", "rewrite"},
		// Every call of a provider's tool, before the upstream edge.
		"call tools/call":     {"policy", "flows"},
		"upstream tools/call": {"track", "order", "trace", "log", "discover", "rewrite"},
	}
	got := map[string][]string{}
	for k, v := range seen {
		if _, ok := want[k]; ok {
			got[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chain order (-declared +met):\n%s", diff)
	}
}

// The values a leaky upstream plants; none may reach a client.
var planted = []string{"ann.lee@example.com", "+44 20 7946 0958", "4111 1111 1111 1111"}

const plantedText = "ann.lee@example.com, +44 20 7946 0958, card 4111 1111 1111 1111"

// newLeakyServer is an upstream that puts the planted values in each
// thing it offers: a tool, a resource, a template, a prompt, completions.
func newLeakyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"ann.lee@example.com"}}}, nil
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whois", Description: "Who is a customer."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: plantedText}}}, nil, nil
		})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: plantedText}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "crm://people/ann", Name: "ann", Description: "Card of ann.lee@example.com"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "crm://people/{id}", Name: "person", Description: "Reach them at +44 20 7946 0958"}, read)
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets ann.lee@example.com", Arguments: []*mcp.PromptArgument{{Name: "who", Description: "card 4111 1111 1111 1111"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: plantedText, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: plantedText}}}}, nil
		})
	return s
}

// TestPIIOnEveryPath: through passthrough, every answer a client gets
// about a leaky upstream's tool, resources, templates, prompts and
// completions shows tokens, never the planted values.
func TestPIIOnEveryPath(t *testing.T) {
	for _, mode := range []string{config.ExposeCode, config.ExposePassthrough, config.ExposeHybrid} {
		t.Run(mode, func(t *testing.T) {
			cfg := testConfig(httpUpstream(t, "crm", newLeakyServer()))
			cfg.Expose.Mode = mode
			p, cs := startProxy(t, cfg)
			ctx := context.Background()
			var answers []any
			keep := func(what string, v any, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				answers = append(answers, v)
			}
			tools, err := cs.ListTools(ctx, nil)
			keep("tools/list", tools, err)
			name := ""
			for _, tool := range tools.Tools {
				if strings.HasSuffix(tool.Name, "whois") {
					name = tool.Name
				}
			}
			if name != "" {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				keep("tools/call", res, err)
			}
			if mode != config.ExposePassthrough {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": `print(tools.crm.whois{}) return tools.crm.whois{}`}})
				keep("run_script", res, err)
			}
			r1, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm://people/ann"})
			keep("resources/read static", r1, err)
			r2, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm://people/bob"})
			keep("resources/read templated", r2, err)
			l1, err := cs.ListResources(ctx, nil)
			keep("resources/list", l1, err)
			l2, err := cs.ListResourceTemplates(ctx, nil)
			keep("resources/templates/list", l2, err)
			l3, err := cs.ListPrompts(ctx, nil)
			keep("prompts/list", l3, err)
			g, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
			keep("prompts/get", g, err)
			c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "a"}})
			keep("completion/complete", c, err)
			b, _ := json.Marshal(answers)
			for _, v := range planted {
				if strings.Contains(string(b), v) {
					t.Errorf("%q reached the client: %s", v, b)
				}
			}
			for _, tok := range []string{"[EMAIL_1]", "[PHONE_1]", "[CREDIT_CARD_1]"} {
				if !strings.Contains(string(b), tok) {
					t.Errorf("no %s in what the client got: %s", tok, b)
				}
			}
			// The same registry serves a second session: its lists are
			// tokenized with its own vault, the registry left as it was.
			l4, err := connectClient(t, p.Server()).ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(l4); strings.Contains(string(b), planted[0]) || !strings.Contains(string(b), "[EMAIL_1]") {
				t.Errorf("a second session's resources/list: %s", b)
			}
		})
	}
}

// TestSessionEndsInOnePlace: whatever ends a session, its context ends,
// it leaves the registry and its workspace is removed.
func TestSessionEndsInOnePlace(t *testing.T) {
	p, _ := startProxy(t, testConfig(httpUpstream(t, "crm", newLeakyServer())))
	// startProxy's own session stays open, and may have a workspace too
	// (its spare children are started when it is made): the session this
	// test ends is the one that is new after connectClient.
	before := p.sessions.list()
	cs := connectClient(t, p.Server())
	if out, failed := runLua(t, cs, `return 1`); failed {
		t.Fatal(out)
	}
	var s *Session
	for _, x := range p.sessions.list() {
		if !slices.Contains(before, x) {
			s = x
		}
	}
	if s == nil {
		t.Fatal("no session for the new client")
	}
	dir := p.workspaces.Dir(s.ws)
	if dir == "" {
		t.Fatal("the session that ran a script has no workspace")
	}
	_ = cs.Close()
	select {
	case <-s.ctx.Done():
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatal("the session's context did not end with it")
	}
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for slices.Contains(p.sessions.list(), s) || fileExists(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("%v after the session closed: in registry %v, workspace there %v", testlog.Bound(time.Minute), slices.Contains(p.sessions.list(), s), fileExists(dir))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// testStderrExitEnv makes the test binary an upstream that writes the
// variable's value to stderr and exits before it speaks MCP.
const testStderrExitEnv = "TOOLFOLD_TEST_STDERR_EXIT"

// TestUpstreamStderrScrubbed: an upstream's stderr is quoted to every
// session (in the unavailable reason) and logged; the personal data in it
// is replaced where it is read, so no session sees it in clear.
func TestUpstreamStderrScrubbed(t *testing.T) {
	up := stdioUpstream("crm")
	up.Env = map[string]string{testStderrExitEnv: "fatal: no account for ann.lee@example.com (tel +44 20 7946 0958)"}
	var logs strings.Builder
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(b)
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, cs := startProxyWith(t, testConfig(up), &Options{Logger: log})
	out, _ := runLua(t, cs, `return tools.crm.anything{}`)
	search, _ := callText(t, cs, "search_tools", map[string]any{"query": "account"})
	logMu.Lock()
	all := out + "\n" + search + "\n" + p.Status()[0].Err + "\n" + logs.String()
	logMu.Unlock()
	if !strings.Contains(all, "[EMAIL]") {
		t.Fatalf("the stderr line is not quoted anywhere; got:\n%s", all)
	}
	for _, v := range planted[:2] {
		if strings.Contains(all, v) {
			t.Errorf("%q from the upstream's stderr reached a client or the log:\n%s", v, all)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
