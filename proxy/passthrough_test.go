package proxy

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
	"github.com/toolfold/toolfold/internal/testlog"
)

// richServer is an upstream with a prompt, a resource, a template, a
// completion handler, subscriptions, and a tool that asks its client for
// sampling, elicitation and roots, logs and reports progress.
func richServer(label string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rich-" + label}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{label + ":" + req.Params.Ref.Name + req.Params.Ref.URI}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: label + " greets " + req.Params.Arguments["who"]}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: label + " doc"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://" + label + "/{id}", Name: "item"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: label + " item " + req.Params.URI}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ss := req.Session
		if strings.Contains(string(req.Params.Arguments), "wait") {
			time.Sleep(300 * time.Millisecond) // for another session to become the last active
		}
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: label + " working"})
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2})
		}
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, err
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		roots, err := ss.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		text := msg.Content.(*mcp.TextContent).Text + "|" + el.Content["name"].(string) + "|" + roots.Roots[0].URI
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	return s
}

// richClient connects a client with sampling, elicitation, roots and
// notification handlers to p.
func richClient(t *testing.T, p *Proxy, name string, got *clientLog) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: name}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by " + name}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { got.add("log:" + req.Params.Data.(string)) },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got.add("progress:" + fmtAny(req.Params.ProgressToken))
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			got.add("updated:" + req.Params.URI)
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///" + name})
	// 2025-11-25: server-to-client requests during a call are the
	// legacy form (the conformance suite's too).
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type clientLog struct {
	mu  sync.Mutex
	got []string
}

func (l *clientLog) add(s string) { l.mu.Lock(); l.got = append(l.got, s); l.mu.Unlock() }
func (l *clientLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.got, s)
}

func fmtAny(v any) string { b, _ := json.Marshal(v); return string(b) }

// waitFor polls cond for up to 5s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPassthroughSingleUpstreamLooksLikeItself(t *testing.T) {
	up := richServer("a")
	cfg := testConfig(httpUpstream(t, "a", up))
	p, _ := startProxy(t, cfg)
	var log clientLog
	cs := richClient(t, p, "alice", &log)
	ctx := context.Background()

	waitFor(t, "prompts", func() bool {
		r, err := cs.ListPrompts(ctx, nil)
		return err == nil && len(r.Prompts) == 1
	})
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "bob"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "a greets bob" {
		t.Fatalf("prompts/get: %v %+v", err, pr)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "test://doc" {
		t.Fatalf("resources/list: %v %+v", err, res)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://doc"})
	if err != nil || rr.Contents[0].Text != "a doc" {
		t.Fatalf("read: %v %+v", err, rr)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a/7"})
	if err != nil || rr.Contents[0].Text != "a item test://a/7" {
		t.Fatalf("read template: %v %+v", err, rr)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "test://a/{id}" {
		t.Fatalf("templates: %v %+v", err, tl)
	}
	cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "b"}})
	if err != nil || cr.Completion.Values[0] != "a:greet" {
		t.Fatalf("complete: %v %+v", err, cr)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://doc"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	// The upstream announces an update; the subscriber hears it.
	if err := up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://doc"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "notifications/resources/updated", func() bool { return log.has("updated:test://doc") })
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A single upstream's prompt changes reach the client as list_changed.
	up.AddPrompt(&mcp.Prompt{Name: "second"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	waitFor(t, "the new prompt", func() bool {
		r, err := cs.ListPrompts(ctx, nil)
		return err == nil && len(r.Prompts) == 2
	})
}

func TestPassthroughClientRequestsReachTheRightSession(t *testing.T) {
	cfg := testConfig(httpUpstream(t, "a", richServer("a")))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)
	var la, lb clientLog
	alice := richClient(t, p, "alice", &la)
	bob := richClient(t, p, "bob", &lb)
	ctx := context.Background()
	for _, cs := range []*mcp.ClientSession{alice, bob} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		cs   *mcp.ClientSession
		name string
		log  *clientLog
	}{{alice, "alice", &la}, {bob, "bob", &lb}} {
		params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}
		params.SetProgressToken("tok-" + c.name)
		res, err := c.cs.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		want := "sampled by " + c.name + "|" + c.name + "|file:///" + c.name
		if got := res.Content[0].(*mcp.TextContent).Text; got != want || res.IsError {
			t.Fatalf("%s: got %q, want %q", c.name, got, want)
		}
		waitFor(t, c.name+"'s progress with its own token", func() bool { return c.log.has(`progress:"tok-` + c.name + `"`) })
		waitFor(t, c.name+"'s log", func() bool { return c.log.has("log:a working") })
	}
}

func TestCollidingNamesAreNamespaced(t *testing.T) {
	cfg := testConfig(httpUpstream(t, "a", richServer("a")), httpUpstream(t, "b", richServer("b")))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)
	var log clientLog
	cs := richClient(t, p, "alice", &log)
	ctx := context.Background()
	var names []string
	waitFor(t, "two prompts", func() bool {
		r, err := cs.ListPrompts(ctx, nil)
		names = names[:0]
		if err == nil {
			for _, p := range r.Prompts {
				names = append(names, p.Name)
			}
		}
		return len(names) == 2
	})
	slices.Sort(names)
	if !slices.Equal(names, []string{"a__greet", "b__greet"}) {
		t.Fatalf("prompts: %v", names)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "b__greet", Arguments: map[string]string{"who": "x"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "b greets x" {
		t.Fatalf("prompts/get b__greet: %v", err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "toolfold://b/test://doc"})
	if err != nil || rr.Contents[0].Text != "b doc" || rr.Contents[0].URI != "toolfold://b/test://doc" {
		t.Fatalf("read namespaced: %v %+v", err, rr)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tn []string
	for _, tool := range tools.Tools {
		tn = append(tn, tool.Name)
	}
	slices.Sort(tn)
	if !slices.Equal(tn, []string{"a__ask", "b__ask"}) {
		t.Fatalf("tools: %v", tn)
	}
	var adv []string
	for _, tool := range p.AdvertisedTools() { // what toolfold check shows
		adv = append(adv, tool.Name)
	}
	slices.Sort(adv)
	if !slices.Equal(adv, tn) {
		t.Errorf("AdvertisedTools: %v, want what clients list: %v", adv, tn)
	}
	for _, n := range tn {
		if len(n) > 64 || strings.ContainsAny(n, ":.") {
			t.Errorf("name %q is not accepted by strict clients", n)
		}
	}
}

func TestScriptCallsReachTheirSession(t *testing.T) {
	cfg := testConfig(httpUpstream(t, "a", richServer("a")))
	p, _ := startProxy(t, cfg)
	var la, lb clientLog
	alice := richClient(t, p, "alice", &la)
	bob := richClient(t, p, "bob", &lb)
	go func() {
		// bob becomes the last active session while alice's script runs,
		// so only real attribution picks alice.
		time.Sleep(100 * time.Millisecond)
		_ = bob.Ping(context.Background(), nil)
	}()
	text, isErr := runLua(t, alice, `return tools.a.ask{wait = true}`)
	if isErr || !strings.Contains(text, "sampled by alice|alice|file:///alice") {
		t.Fatalf("script: %q (isError %v); want alice's answers", text, isErr)
	}
}

// TestSessionsAreIsolated: each session gets only the log messages its
// own level lets through, and resource updates only for its subscriptions.
func TestSessionsAreIsolated(t *testing.T) {
	up := richServer("a")
	cfg := testConfig(httpUpstream(t, "a", up))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)
	var la, lb clientLog
	alice := richClient(t, p, "alice", &la)
	bob := richClient(t, p, "bob", &lb)
	ctx := context.Background()
	if err := alice.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if err := bob.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	if err := alice.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://doc"}); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []*mcp.ClientSession{alice, bob} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://doc"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice's log and update", func() bool { return la.has("log:a working") && la.has("updated:test://doc") })
	// bob's own ping round trip orders everything sent to him before it.
	if err := bob.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if lb.has("log:a working") || lb.has("updated:test://doc") {
		t.Errorf("bob (level error, no subscription) got %q", lb.got)
	}
}

// TestPassthroughToolListChanged: a tool an upstream adds reaches clients
// of expose: passthrough with notifications/tools/list_changed.
func TestPassthroughToolListChanged(t *testing.T) {
	srv := newTestServer()
	cfg := testConfig(httpUpstream(t, "remote", srv))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)
	changed := make(chan struct{}, 10)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcp.AddTool(srv, &mcp.Tool{Name: "translate_klingon", Description: "Translate English text into Klingon."},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "nuqneH"}}}, nil, nil
		})
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed")
	}
	waitFor(t, "the new tool", func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "translate_klingon", Arguments: map[string]any{"text": "hello"}})
		return err == nil && !res.IsError && mcptext.Text(res.Content) == "nuqneH"
	})
}
