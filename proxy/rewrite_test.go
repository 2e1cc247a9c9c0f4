package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

// piiServer is an upstream that hands out personal data and records the
// arguments it receives.
type piiServer struct {
	mu   sync.Mutex
	got  []string // raw arguments of every "save" call
	srv  *mcp.Server
	text string
}

func newPIIServer() *piiServer {
	p := &piiServer{srv: mcp.NewServer(&mcp.Implementation{Name: "pii-upstream", Version: "1"}, nil)}
	mcp.AddTool(p.srv, &mcp.Tool{Name: "lookup", Description: "Look up a customer."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Ann <ann@example.com>, card 4111 1111 1111 1111"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///ann.txt", Text: "phone +44 20 7946 0958"}},
			}}, nil, nil
		})
	mcp.AddTool(p.srv, &mcp.Tool{Name: "profile", Description: "A customer's profile as structured content."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, map[string]any{"email": "bob@example.com", "ip": "203.0.113.9", "visits": 3}, nil
		})
	type saveIn struct {
		To   string         `json:"to"`
		Body string         `json:"body"`
		Meta map[string]any `json:"meta,omitempty"`
	}
	mcp.AddTool(p.srv, &mcp.Tool{Name: "save", Description: "Save a note."},
		func(_ context.Context, req *mcp.CallToolRequest, in saveIn) (*mcp.CallToolResult, any, error) {
			p.mu.Lock()
			p.got = append(p.got, string(req.Params.Arguments))
			p.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "saved for " + in.To}}}, nil, nil
		})
	mcp.AddTool(p.srv, &mcp.Tool{Name: "deny", Description: "Refuse with a message naming the user."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("no access for carol@example.com")
		})
	return p
}

func (p *piiServer) saved() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func TestPIIToolPath(t *testing.T) {
	up := newPIIServer()
	p, cs := startProxy(t, testConfig(httpUpstream(t, "crm", up.srv)))
	out, failed := runLua(t, cs, `
local l = tools.crm.lookup{}
local r = l[1].text .. "; " .. l[2].text
local s = tools.crm.profile{}
print(r)
print(s.email, s.ip, s.visits)
local email = string.match(r, "%[EMAIL_%d+%]")
tools.crm.save{to = email, body = "mail " .. email .. " and " .. s.email .. " today", meta = {card = string.match(r, "%[CREDIT_CARD_%d+%]"), unknown = "[EMAIL_99]"}}
local ok, err = pcall(function() return tools.crm.deny{} end)
print(err)
return tools.crm.save{to = s.email, body = "x"}`)
	if failed {
		t.Fatalf("script failed: %s", out)
	}
	for _, raw := range []string{"Ann", "ann@example.com", "4111", "7946", "bob@example.com", "203.0.113.9", "carol@example.com"} {
		if strings.Contains(out, raw) {
			t.Errorf("the client saw %q:\n%s", raw, out)
		}
	}
	for _, want := range []string{"[NAME_1] <[EMAIL_1]>, card [CREDIT_CARD_1]", "phone [PHONE_1]", "[EMAIL_2]\t[IP_ADDRESS_1]\t3",
		"no access for [EMAIL_3]", `=> "saved for [EMAIL_2]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	got := up.saved()
	if len(got) != 2 {
		t.Fatalf("upstream saw %d saves: %v", len(got), got)
	}
	var first struct {
		To, Body string
		Meta     map[string]string
	}
	if err := json.Unmarshal([]byte(got[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.To != "ann@example.com" || first.Body != "mail ann@example.com and bob@example.com today" ||
		first.Meta["card"] != "4111 1111 1111 1111" || first.Meta["unknown"] != "[EMAIL_99]" {
		t.Errorf("upstream received %s", got[0])
	}

	// Another client session has its own vault: the first session's
	// tokens mean nothing there and reach the upstream as they are.
	cs2 := connectClient(t, p.Server())
	out2, _ := runLua(t, cs2, `return tools.crm.save{to = "[EMAIL_1]", body = "[CREDIT_CARD_1]"}`)
	if strings.Contains(out2, "ann@") {
		t.Errorf("second session: %s", out2)
	}
	got = up.saved()
	if last := got[len(got)-1]; !strings.Contains(last, `"to":"[EMAIL_1]"`) || !strings.Contains(last, `"body":"[CREDIT_CARD_1]"`) {
		t.Errorf("foreign tokens changed on the way upstream: %s", last)
	}
}

func TestPIITrustedAndDisabled(t *testing.T) {
	up := newPIIServer()
	cfg := testConfig(httpUpstream(t, "crm", up.srv))
	cfg.PII = config.PII{TrustedUpstreams: []string{"crm"}}
	_, cs := startProxy(t, cfg)
	if out, _ := runLua(t, cs, `return tools.crm.profile{}.email`); !strings.Contains(out, "bob@example.com") {
		t.Errorf("trusted upstream tokenized: %s", out)
	}
	up2 := newPIIServer()
	cfg2 := testConfig(httpUpstream(t, "crm", up2.srv))
	cfg2.PII = config.PII{Disabled: true}
	_, cs2 := startProxy(t, cfg2)
	if out, _ := runLua(t, cs2, `return tools.crm.profile{}.email`); !strings.Contains(out, "bob@example.com") {
		t.Errorf("PII off, yet tokenized: %s", out)
	}
}

// A run without a client session (RunScript from a command) still hides
// values, and still restores them for the upstream.
func TestPIIRunWithoutSession(t *testing.T) {
	up := newPIIServer()
	p, _ := startProxy(t, testConfig(httpUpstream(t, "crm", up.srv)))
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	text, failed, err := p.RunScript(ctx, `local s = tools.crm.profile{}; tools.crm.save{to = s.email, body = ""}; return s.email`, "")
	if err != nil || failed || !strings.Contains(text, "[EMAIL_1]") || strings.Contains(text, "bob@") {
		t.Fatalf("RunScript = %q, %v, %v", text, failed, err)
	}
	if got := up.saved(); len(got) != 1 || !strings.Contains(got[0], "bob@example.com") {
		t.Errorf("upstream got %v", got)
	}
}

// Spans that capture content, and logs, see only tokens: the rewrite is
// innermost on the upstream edge.
func TestPIITracesSeeTokens(t *testing.T) {
	up := newPIIServer()
	rig := newTelemetryRig(t, true)
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "crm", up.srv)), rig.opts)
	out, failed := runLua(t, cs, `local s = tools.crm.profile{}; return tools.crm.save{to = s.email, body = "hi"}`)
	if failed {
		t.Fatalf("script: %s", out)
	}
	var captured int
	for _, s := range rig.spans.GetSpans() {
		for _, kv := range s.Attributes {
			v := kv.Value.Emit()
			if strings.Contains(v, "bob@example.com") || strings.Contains(v, "203.0.113.9") {
				t.Errorf("span %q attribute %s holds a raw value: %.200q", s.Name, kv.Key, v)
			}
			if strings.Contains(v, "[EMAIL_1]") {
				captured++
			}
		}
	}
	if captured < 2 { // the profile result and the save arguments
		t.Errorf("%d attributes hold the token; want the captured result and arguments", captured)
	}
	if got := up.saved(); len(got) != 1 || !strings.Contains(got[0], "bob@example.com") {
		t.Errorf("upstream got %v", got)
	}
}

// resources/read and prompts/get: tokens restored in the request the
// upstream gets, the answer tokenized; the request the outer middlewares
// hold is not modified.
func TestRewriteMiddlewareResourcesAndPrompts(t *testing.T) {
	s := newPIIState(config.PII{}, nil)
	v := s.newVault()
	v.From("up.find").Tokenize("ann@example.com") // [EMAIL_1], from the same server
	ctx := s.withVault(context.Background(), v)
	var seen []string
	next := func(_ context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch p := req.GetParams().(type) {
		case *mcp.ReadResourceParams:
			seen = append(seen, p.URI)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: "owner " + strings.TrimPrefix(p.URI, "mailto:")}}}, nil
		case *mcp.GetPromptParams:
			seen = append(seen, p.Arguments["to"])
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "write to " + p.Arguments["to"]}}}}, nil
		}
		return nil, fmt.Errorf("unexpected %s", method)
	}
	h := rewriteMiddleware("up")(next)
	rp := &mcp.ReadResourceParams{URI: "mailto:[EMAIL_1]"}
	res, err := h(ctx, "resources/read", &mcp.ClientRequest[mcp.Params]{Params: rp})
	if err != nil {
		t.Fatal(err)
	}
	rr := res.(*mcp.ReadResourceResult)
	if rp.URI != "mailto:[EMAIL_1]" || rr.Contents[0].Text != "owner [EMAIL_1]" || rr.Contents[0].URI != "mailto:[EMAIL_1]" {
		t.Errorf("resources/read: params %q, result %+v", rp.URI, rr.Contents[0])
	}
	gp := &mcp.GetPromptParams{Name: "mail", Arguments: map[string]string{"to": "[EMAIL_1]"}}
	res, err = h(ctx, "prompts/get", &mcp.ClientRequest[mcp.Params]{Params: gp})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.(*mcp.GetPromptResult).Messages[0].Content.(*mcp.TextContent).Text; txt != "write to [EMAIL_1]" || gp.Arguments["to"] != "[EMAIL_1]" {
		t.Errorf("prompts/get: %q, params %v", txt, gp.Arguments)
	}
	if want := []string{"mailto:ann@example.com", "ann@example.com"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("the upstream saw %q, want %q", seen, want)
	}
}

// TestDetokenizeRequestCopies: a tool call whose arguments hold a token
// goes upstream as a copy with the value restored, the caller's request
// unchanged; one whose arguments hold none goes as it is, not copied.
func TestDetokenizeRequestCopies(t *testing.T) {
	s := newPIIState(config.PII{}, nil)
	v := s.newVault()
	v.Tokenize("ann@example.com") // [EMAIL_1]
	withToken := &mcp.ClientRequest[mcp.Params]{Params: &mcp.CallToolParams{Name: "save", Arguments: json.RawMessage(`{"to":"[EMAIL_1]"}`)}}
	got := detokenizeRequest(v, withToken)
	if got == mcp.Request(withToken) || string(got.GetParams().(*mcp.CallToolParams).Arguments.(json.RawMessage)) != `{"to":"ann@example.com"}` ||
		string(withToken.Params.(*mcp.CallToolParams).Arguments.(json.RawMessage)) != `{"to":"[EMAIL_1]"}` {
		t.Errorf("with a token: got %+v, the caller's is now %+v", got.GetParams(), withToken.Params)
	}
	plain := &mcp.ClientRequest[mcp.Params]{Params: &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}}
	if got := detokenizeRequest(v, plain); got != mcp.Request(plain) {
		t.Errorf("without a token the request was copied: %+v", got.GetParams())
	}
}

// Over streamable HTTP, a client session spans many HTTP requests: its
// vault lives as long as the session, so a token from one run_script call
// is restored in the next.
func TestPIIVaultSpansHTTPRequests(t *testing.T) {
	up := newPIIServer()
	p := New(testConfig(httpUpstream(t, "crm", up.srv)), &Options{Runners: []sandbox.Runner{sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]})}})
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	p.Start(context.Background())
	p.WaitReady(ctx)
	t.Cleanup(p.Close)
	ts := httptest.NewServer(p.HTTPHandler(""))
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	out, _ := runLua(t, cs, `return tools.crm.profile{}.email`)
	if !strings.Contains(out, `=> "[EMAIL_1]"`) {
		t.Fatalf("first request: %s", out)
	}
	if out, failed := runLua(t, cs, `return tools.crm.save{to = "[EMAIL_1]", body = ""}`); failed {
		t.Fatalf("second request: %s", out)
	}
	if got := up.saved(); len(got) != 1 || !strings.Contains(got[0], "bob@example.com") {
		t.Errorf("upstream got %v", got)
	}
}

// A vault goes when its client session ends.
func TestPIIVaultDroppedWithSession(t *testing.T) {
	up := newPIIServer()
	p, _ := startProxy(t, testConfig(httpUpstream(t, "crm", up.srv)))
	cs := connectClient(t, p.Server())
	if out, _ := runLua(t, cs, `return tools.crm.profile{}.email`); !strings.Contains(out, "[EMAIL_1]") {
		t.Fatalf("script: %s", out)
	}
	count := func() int { // the live sessions' vaults
		n := 0
		for _, s := range p.sessions.list() {
			if s.vault != nil {
				n++
			}
		}
		return n
	}
	if n := count(); n != 2 { // startProxy's session and this one
		t.Fatalf("%d vaults, want 2", n)
	}
	_ = cs.Close()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for count() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d vaults %v after the session closed, want 1", count(), testlog.Bound(time.Minute))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// What a script decodes itself never crossed the upstream edge as a value:
// run_script's answer is scanned on its way to the client (issue 15).
func TestPIIScriptOutputScanned(t *testing.T) {
	up := newPIIServer()
	_, cs := startProxy(t, testConfig(httpUpstream(t, "crm", up.srv)))
	out, failed := runLua(t, cs, `
local b = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function unb64(s)
  local bits = s:gsub("=", ""):gsub(".", function(c)
    local v, r = b:find(c, 1, true) - 1, ""
    for i = 6, 1, -1 do r = r .. ((v % 2^i - v % 2^(i-1) > 0) and "1" or "0") end
    return r
  end)
  return (bits:gsub("%d%d%d?%d?%d?%d?%d?%d?", function(x)
    if #x ~= 8 then return "" end
    local c = 0
    for i = 1, 8 do c = c + (x:sub(i, i) == "1" and 2^(8-i) or 0) end
    return string.char(c)
  end))
end
local s = tools.crm.profile{}
print("known " .. s.email)
print("decoded " .. unb64("ZGF2ZUBleGFtcGxlLmNvbQ=="))
return "ssn:536-22-1234"`)
	if failed {
		t.Fatalf("script failed: %s", out)
	}
	for _, raw := range []string{"dave@example.com", "536-22-1234"} {
		if strings.Contains(out, raw) {
			t.Errorf("the client saw %q:\n%s", raw, out)
		}
	}
	for _, want := range []string{"known [EMAIL_1]", "decoded [EMAIL_2]", `"ssn:[US_SSN_1]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
