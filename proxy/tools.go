package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/bytesize"
	"github.com/toolfold/toolfold/sandbox"
)

// The two tools' schemas, written by hand to stay compact: they and the
// descriptions are the only schema cost a client pays.
var (
	searchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what you want to do, or a tool name"},"detail":{"type":"string","enum":["name","summary","full"]},"limit":{"type":"integer","minimum":1,"maximum":50},"server":{"type":"string"},"language":{"type":"string","description":"script language of signatures and examples; default: run_script's"}},"required":["query"]}`)
	runSchemaFmt = `{"type":"object","properties":{"code":{"type":"string"},"language":{"type":"string","enum":%s}},"required":["code"]}`
)

// advertise (re)registers search_tools and run_script when their
// descriptions changed; the SDK then notifies clients (tools/list_changed).
func (p *Proxy) advertise() {
	if !p.exposesCode() {
		return
	}
	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	servers := p.serverLine()
	langs, _ := json.Marshal(p.langs)
	def := p.defaultLanguage()
	search := &mcp.Tool{
		Name: "search_tools",
		Description: "Find tools of the MCP servers behind this proxy; call them with run_script. Servers: " + servers +
			". detail: name (names only), summary (default: " + def.Title + " signature + first sentence), full (parameters, result shape, example).",
		InputSchema: searchSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
	run := &mcp.Tool{
		Name: "run_script",
		Description: "Run a " + def.Title + " script that calls the tools found with search_tools; tool results stay in the script, only what it prints or returns comes back, so filter and combine there. " +
			p.runHelp(def) + " " + p.workspaceHelp() + p.treeHelp() +
			fmt.Sprintf("Limits: %s, %s output, no network.", p.cfg.Sandbox.Timeout, bytesize.Format(p.cfg.Sandbox.OutputBytes)),
		InputSchema: json.RawMessage(fmt.Sprintf(runSchemaFmt, langs)),
	}
	if p.advertis[0] == nil || p.advertis[0].Description != search.Description {
		p.server.AddTool(search, p.handleSearch)
		p.advertis[0] = search
	}
	if p.advertis[1] == nil || p.advertis[1].Description != run.Description {
		p.server.AddTool(run, p.handleRun)
		p.advertis[1] = run
	}
}

// AdvertisedTools returns the two tools as clients see them.
func (p *Proxy) AdvertisedTools() []*mcp.Tool {
	var out []*mcp.Tool
	if p.exposesCode() {
		p.toolsMu.Lock()
		out = []*mcp.Tool{p.advertis[0], p.advertis[1]}
		p.toolsMu.Unlock()
	}
	return append(out, p.fwd.ExposedTools()...) // passthrough, hybrid (package passthrough)
}

// serverLineBudget bounds the server list in search_tools' description,
// in bytes (about a quarter as many tokens): the description is paid on
// every turn, so 124 servers must not cost more than three.
const serverLineBudget = 2400

// serverLine names each upstream with its purpose and tool count:
// "filesystem (files under the project, 14 tools); memory (...)". When that
// exceeds serverLineBudget it falls back, in steps, to names with counts,
// names alone, and as many names as fit followed by how many more there are;
// search_tools finds every server's tools whichever form is shown.
func (p *Proxy) serverLine() string {
	var full, counted, names []string
	for _, s := range p.tools.servers() {
		if s.State == StateDisabled {
			continue
		}
		var state string
		if s.Tools == nil && s.State != StateReady {
			state = s.State
		} else {
			state = fmt.Sprintf("%d tools", len(s.Tools))
		}
		line := s.Name + " ("
		if p := purpose(s); p != "" {
			line += p + "; "
		}
		full = append(full, line+state+")")
		counted = append(counted, s.Name+" ("+state+")")
		names = append(names, s.Name)
	}
	if len(full) == 0 {
		return "none configured"
	}
	for _, parts := range [][]string{full, counted} {
		if l := strings.Join(parts, "; "); len(l) <= serverLineBudget {
			return l
		}
	}
	if l := strings.Join(names, ", "); len(l) <= serverLineBudget {
		return l
	}
	var b strings.Builder
	for i, n := range names {
		more := fmt.Sprintf(" and %d more (search_tools finds them all)", len(names)-i)
		if b.Len()+len(n)+2+len(more) > serverLineBudget {
			b.WriteString(more)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

type searchArgs struct {
	Query    string `json:"query"`
	Detail   string `json:"detail"`
	Limit    int    `json:"limit"`
	Server   string `json:"server"`
	Language string `json:"language"`
}

func (p *Proxy) handleSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in searchArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	text, err := p.search(ctx, in.Query, in.Detail, in.Limit, in.Server, in.Language)
	if s := sessionOf(ctx); err == nil && s != nil {
		p.learn.Searched(s.recentSearches(), in.Query)
		p.prestartOnSearch(s)
	}
	if err != nil {
		if _, ok := err.(*jsonrpc.Error); ok {
			return nil, err
		}
		return errorResult(err.Error()), nil
	}
	return textResult(text), nil
}

// Search runs search_tools. A bad detail or limit is a protocol error
// (*jsonrpc.Error); an unknown server filter is an error the model can fix.
func (p *Proxy) Search(query, detail string, limit int, server string) (string, error) {
	return p.search(context.Background(), query, detail, limit, server, "")
}

// SearchLanguage is Search with signatures and examples in a script
// language (lua, python, javascript; "" for run_script's default).
func (p *Proxy) SearchLanguage(query, detail string, limit int, server, lang string) (string, error) {
	return p.search(context.Background(), query, detail, limit, server, lang)
}

// search is Search inside a span, a child of ctx's, its text tokenized
// with the vault ctx carries (none for a person's toolfold search).
// lang names the script language of signatures ("" for the default).
func (p *Proxy) search(ctx context.Context, query, detail string, limit int, server, lang string) (string, error) {
	return p.tel.TraceSearch(ctx, query, detail, limit, server, func() (string, int, error) {
		return p.searchCatalog(ctx, query, detail, limit, server, lang)
	})
}

// searchCatalog renders the hits of one search and counts them. What
// upstreams wrote about their tools is tokenized with the vault of ctx
// (catalogpii.go).
func (p *Proxy) searchCatalog(ctx context.Context, query, detail string, limit int, server, lang string) (string, int, error) {
	if strings.TrimSpace(query) == "" {
		return "", 0, invalidParams("query is required: describe what you want to do, e.g. \"read a file\"")
	}
	if detail == "" {
		detail = string(index.DetailSummary)
	}
	switch index.Detail(detail) {
	case index.DetailName, index.DetailSummary, index.DetailFull:
	default:
		return "", 0, invalidParams(fmt.Sprintf("detail must be name, summary or full, not %q", detail))
	}
	if limit < 0 || limit > 50 {
		return "", 0, invalidParams(fmt.Sprintf("limit must be between 1 and 50, not %d", limit))
	}
	if lang == "" {
		lang = p.defaultLanguage().Name
	} else if names := sandbox.LanguageNames(); !slices.Contains(names, lang) {
		return "", 0, invalidParams(fmt.Sprintf("language %q is not known; use one of: %s", lang, strings.Join(names, ", ")))
	}
	ix := p.catalog.Load()
	if server != "" && !slices.ContainsFunc(ix.Servers(), func(s index.ServerInfo) bool { return s.Name == server }) {
		var names []string
		for _, s := range ix.Servers() {
			names = append(names, s.Name)
		}
		return "", 0, fmt.Errorf("no server named %q; servers: %s", server, strings.Join(names, ", "))
	}
	hits := ix.Search(query, index.SearchOptions{Limit: limit, Server: server, Usage: p.learn.Usage()})
	text := ix.RenderWith(query, hits, index.Detail(detail), lang, index.RenderOptions{Shapes: p.learn.Shapes(), Label: p.guard.label})
	return p.pii.searchText(ctx, p.catalogPII.Load(), ix, hits, text), len(hits), nil
}

type runArgs struct {
	Code     string `json:"code"`
	Language string `json:"language"`
}

func (p *Proxy) handleRun(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in runArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	// asking: a call the policy asks about waits for the person
	// (approval.go).
	return p.asking(ctx, req, func(ctx context.Context) (*mcp.CallToolResult, error) {
		// withProgress: what the script prints reaches the client as it
		// runs, when the client listens (progress.go).
		text, failed, err := p.RunScript(withProgress(ctx, req), in.Code, in.Language)
		if err != nil {
			return nil, err
		}
		if failed {
			return errorResult(text), nil
		}
		return textResult(text), nil
	})
}

// RunScript runs code and renders run_script's answer. failed reports a
// script failure (an isError result); err is for malformed requests. A
// run of a client session (withSession) works in the session's workspace
// (package workspace), any other in a fresh directory.
func (p *Proxy) RunScript(ctx context.Context, code, lang string) (text string, failed bool, err error) {
	return p.RunScriptArgs(ctx, code, lang, nil)
}

// RunScriptArgs is RunScript with args, a JSON object, bound as the
// script's global args (nil: none), as a saved skill runs.
func (p *Proxy) RunScriptArgs(ctx context.Context, code, lang string, args json.RawMessage) (text string, failed bool, err error) {
	if strings.TrimSpace(code) == "" {
		return "", false, invalidParams("code is required: a script, e.g. return tools.server.tool{}")
	}
	if lang == "" {
		lang = p.defaultLanguage().Name
	}
	runner, ok := p.runners[lang]
	if !ok {
		return "", false, invalidParams(fmt.Sprintf("language %q is not available here; use one of: %s", lang, strings.Join(p.langs, ", ")))
	}
	release, waited, err := p.slots.Acquire(ctx, sessionOf(ctx).workspace())
	if err != nil {
		return "", false, err
	}
	defer release()
	ctx, span := p.tel.StartScript(p.topFrame(ctx, lang, code), lang, code)
	p.tel.SlotWait(span, waited)
	host := &scriptHost{p: p, lang: lang, session: sessionOf(ctx)}
	start := time.Now()
	p.observeStart(ctx, code)
	sreq := sandbox.Request{Code: code, Language: lang, Limits: p.limits(), Require: sandbox.Require(p.cfg.Sandbox.Require), Args: args}
	var releaseTree func()
	sreq.Tree, releaseTree = p.trees.acquire(ctx, sessionOf(ctx)) // codetree.go
	defer releaseTree()
	if pr := progressOf(ctx); pr != nil {
		sreq.OnOutput = pr.start(func(s string) string { return p.pii.runOutput(ctx, host, s) })
		defer pr.stop() // before the answer: no progress after it
	}
	res, err := p.workspaces.Run(ctx, sessionOf(ctx).workspace(), runner, sreq, host)
	p.tel.EndScript(ctx, span, lang, res, err)
	if err != nil {
		p.auditRun(ctx, start, code, nil, 0, err)
		if ctx.Err() != nil {
			p.observeEnd(ctx, start, host, 0, "(cancelled)", true)
			return "", false, ctx.Err()
		}
		p.log.Error("sandbox failed", "err", err)
		text = "toolfold could not run the script: " + err.Error()
		p.observeEnd(ctx, start, host, 0, text, true)
		return text, true, nil
	}
	text = p.pii.runOutput(ctx, host, p.renderRun(res, host.resultTokens.Load(), waited)+pageAskNote(ctx))
	if res.Err != nil {
		err = res.Err
	}
	p.auditRun(ctx, start, code, res, len(text), err)
	p.observeEnd(ctx, start, host, res.ToolCalls, text, res.Err != nil)
	return text, res.Err != nil, nil
}

// auditRun writes a run's audit line: res is nil when the sandbox could
// not run it; size is what went back to the model. The code goes in,
// tokenized like the calls' arguments, only with audit.capture_code.
func (p *Proxy) auditRun(ctx context.Context, start time.Time, code string, res *sandbox.Result, size int, err error) {
	run := runOf(ctx)
	r := audit.Record{Kind: audit.KindRun, Time: start, RunID: run.id, Language: run.lang, CodeHash: run.codeHash,
		Duration: time.Since(start), ResultBytes: size, IsError: err != nil, Session: auditSession(sessionOf(ctx))}
	if res != nil {
		r.Calls = res.ToolCalls
	}
	if p.guard.audit.CapturesCode() {
		r.Code = p.pii.auditCode(ctx, code)
	}
	p.guard.record(ctx, r, err)
}

// renderRun formats a run: output, "=> value", error, footer. resultTokens
// are the tokens of the results the script's tool calls got.
func (p *Proxy) renderRun(res *sandbox.Result, resultTokens int64, waited time.Duration) string {
	var b strings.Builder
	b.WriteString(res.Output)
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		b.WriteByte('\n')
	}
	if len(res.Value) > 0 && res.Err == nil {
		v := res.Value
		if max := p.cfg.Sandbox.OutputBytes; int64(len(v)) > max {
			cut := utf8Prefix(v, int(max))
			fmt.Fprintf(&b, "=> %s\n[return value truncated: %d more bytes not shown; return less or raise sandbox.output]\n", cut, len(v)-len(cut))
		} else {
			fmt.Fprintf(&b, "=> %s\n", bytes.TrimSpace(v))
		}
	}
	if res.Err != nil {
		b.WriteString(res.Err.Error())
		b.WriteByte('\n')
	}
	b.WriteString(footerHead(res.ToolCalls, resultTokens, res.Duration))
	if res.PendingStopped {
		b.WriteString(", pending work (timers, threads) still running after the script's code ended was stopped")
	}
	if waited >= slotWaitShown {
		fmt.Fprintf(&b, ", after %s waiting for a run slot (other runs were using them)", formatDuration(waited))
	}
	b.WriteByte(']')
	return b.String()
}

// footerHead is the start of a run's footer: "[toolfold: 2 tool calls,
// 1,234 tokens of results kept out of context, 35 ms". resultTokens are
// the tokens of what the script's tool calls (a skill's included) returned
// into the script, of which the model sees only what the script printed
// or returned. They are said only when there were some: a run without
// calls, or whose calls all failed, kept nothing out.
func footerHead(calls int, resultTokens int64, d time.Duration) string {
	noun := "tool calls"
	if calls == 1 {
		noun = "tool call"
	}
	kept := ""
	if resultTokens > 0 {
		kept = ", " + formatCount(resultTokens) + " tokens of results kept out of context"
	}
	return fmt.Sprintf("[toolfold: %d %s%s, %s", calls, noun, kept, formatDuration(d))
}

// slotWaitShown is the least wait for a run slot the footer mentions.
const slotWaitShown = 50 * time.Millisecond

func (p *Proxy) limits() sandbox.Limits {
	return p.cfg.Sandbox.Limits
}

// decodeArgs decodes tool arguments strictly; a malformed request is a
// protocol error.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidParams("invalid arguments: " + err.Error())
	}
	return nil
}

func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: true}
}

// utf8Prefix returns at most max bytes of b, not splitting a character.
func utf8Prefix(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	for max > 0 && !utf8.RuneStart(b[max]) {
		max--
	}
	return b[:max]
}

func formatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// formatCount writes n with thousands separators: 159,936.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// exposesCode reports whether clients see search_tools and run_script:
// with expose: code (the default) and hybrid, not with passthrough.
func (p *Proxy) exposesCode() bool {
	return p.cfg.Expose.Mode != config.ExposePassthrough
}
