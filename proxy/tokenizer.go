package proxy

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// The tokenizer: every path a value takes toward the client, and toward
// the people and records that see only what the model sees, passes one
// function of this file (piiState's methods, and listsMiddleware), each
// replacing personal data with the session's tokens (package rewrite).
// No other file of the package calls a vault's tokenizing methods
// (TestTokenizingOnlyInTokenizer fails on one). The paths, those e2e's
// TestPIIOnEveryPath and TestNoRawValueInDescriptionsSkillsSpansLogs walk,
// and where each is called from:
//
//	tool results and their errors     answer: on each provider's edge, innermost
//	                                  (the pool's: upstreamChain's rewrite,
//	                                  rewriteMiddleware; toolfold's own
//	                                  providers': ownChain's pii entry)
//	resources/read, resources/list,   answer too, on the upstream edge
//	prompts/get, completion/complete
//	lists served from the registry    listsMiddleware: clientChain's pii entry
//	(tools, resources, templates,     (tool descriptions in passthrough and
//	prompts)                          hybrid, server purposes)
//	search_tools' text                searchText (tools.go), catalog descriptions
//	the servers/ tree                 treeText (codetree.go), per session
//	run output: run_script's answer,  runOutput (tools.go, skillhub.go;
//	its progress and info log         progress.go sends what it returns)
//	messages, a skill's
//	an upstream's log messages,       LogMessage, ProgressMessage,
//	progress, sampling and            SamplingRequest, ElicitRequest
//	elicitation text                  (passthrough.Tokenizer: the hub's)
//	the audit and the dashboard       shownCode (observer.go), shownArgs
//	observer: code, arguments, errors (policy.go, flows.go), auditCode
//	                                  (tools.go), auditError (policy.go)
//	spans (telemetry.Config.Clean)    scrubFunc (proxy.go)
//
// What the tokens restore on the way back (rewriteMiddleware,
// SamplingBack, ElicitBack) is the other direction, decided by pii.flows
// (flows.go). Methods are safe on a nil *piiState (PII off): they pass
// values unchanged, or tokenize with the vault ctx carries.

// trusts reports whether server's answers pass untokenized
// (pii.trusted_upstreams).
func (st *piiState) trusts(server string) bool {
	return st != nil && st.trusted[server]
}

// answer tokenizes, in place, what server answered a request (a tool
// result, a resource read or list, a prompt, completions) or the error it
// failed with, minting tokens with origin (server.tool, or server.method).
// Every provider's answer passes here once, on its own edge, innermost, so
// that traces and logs around it see tokens only: an upstream's
// (rewriteMiddleware) and toolfold's own providers' (ownChain).
func (st *piiState) answer(ctx context.Context, server, origin string, res mcp.Result, err error) error {
	v := rewrite.FromContext(ctx)
	if v == nil || st.trusts(server) {
		return err
	}
	v = v.From(origin)
	if err != nil {
		return v.TokenizeError(err)
	}
	switch r := res.(type) {
	case *mcp.CallToolResult:
		v.TokenizeResult(r)
	case *mcp.ReadResourceResult:
		v.TokenizeReadResource(r)
	case *mcp.GetPromptResult:
		v.TokenizePrompt(r)
	case *mcp.ListResourcesResult:
		v.TokenizeResourceList(r)
	case *mcp.CompleteResult:
		v.TokenizeComplete(r)
	}
	return nil
}

// listsMiddleware tokenizes, with the vault of the request's session,
// copies of the lists the SDK serves from toolfold's registry: tools,
// resources, templates, prompts. They were listed upstream with no client
// session, hence no vault, in reach. A resource's tokens record the
// upstream that listed it (owner) as their origin, so a URI read back goes
// to its own server freely.
func listsMiddleware(owner func(exposedURI string) string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			v := rewrite.FromContext(ctx)
			if v == nil || err != nil {
				return res, err
			}
			return listFor(v, res, owner), nil
		}
	}
}

// listFor is res, a list from the registry, as v's session sees it.
func listFor(v *rewrite.Vault, res mcp.Result, owner func(exposedURI string) string) mcp.Result {
	switch r := res.(type) {
	case *mcp.ListResourcesResult:
		return v.ResourcesFrom(r, func(res *mcp.Resource) string {
			if up := owner(res.URI); up != "" {
				return up + ".resources/list"
			}
			return "" // unknown: its tokens go nowhere without a person's yes
		})
	case *mcp.ListResourceTemplatesResult:
		return v.TemplatesFor(r)
	case *mcp.ListPromptsResult:
		return v.PromptsFor(r)
	case *mcp.ListToolsResult:
		// Upstream tools in passthrough and hybrid, and the server
		// purposes in search_tools' description.
		return v.ToolsFor(r)
	}
	return res
}

// searchText is text, rendered from ix for hits, tokenized with the vault
// of ctx where it may hold personal data (c, the catalog's scan, says
// whether it may: catalogpii.go).
func (st *piiState) searchText(ctx context.Context, c *catalogPII, ix *index.Index, hits []index.Hit, text string) string {
	v := rewrite.FromContext(ctx)
	if v == nil || !c.mayHold(ix, hits) {
		return text
	}
	return v.Tokenize(text)
}

// treeText is what tokenizes the texts of session s's own servers/ tree
// (codeapi.WriteOptions.Tokenize); nil for the shared tree, or with PII off.
func (st *piiState) treeText(s *Session) func(string) string {
	if s == nil || s.vault == nil {
		return nil
	}
	return s.vault.Tokenize
}

// runOutput tokenizes personal data a script printed (decoded or assembled
// from tokens, issue 15) in text, a run's answer or a piece of its live
// output (progress and log messages), with the vault of the run. Nothing
// is scanned while an upstream is trusted: its raw values would be.
func (st *piiState) runOutput(ctx context.Context, host *scriptHost, text string) string {
	if st == nil || len(st.trusted) > 0 {
		return text
	}
	return rewrite.FromContext(st.scriptContext(ctx, host)).From(rewrite.OriginClient).ScanOutput(text)
}

// outbound is the vault for content upstream up sends to client session
// s, as method, or nil (nothing to do) when PII is off or up is trusted.
// What it mints records up.method as its origin.
func (st *piiState) outbound(s *Session, up, method string) *rewrite.Vault {
	if st == nil || s == nil || st.trusted[up] {
		return nil
	}
	return s.vault.From(up + "." + method)
}

// LogMessage is a tokenized copy of an upstream's logging notification
// for s.
func (st *piiState) LogMessage(s passthrough.Session, up string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams {
	v := st.outbound(own(s), up, "notifications/message")
	if v == nil || p == nil {
		return p
	}
	cp := *p
	v.TokenizeLog(&cp)
	return &cp
}

// ProgressMessage tokenizes an upstream's progress notification's message
// for s (p is already a copy).
func (st *piiState) ProgressMessage(s passthrough.Session, up string, p *mcp.ProgressNotificationParams) {
	if v := st.outbound(own(s), up, "notifications/progress"); v != nil {
		p.Message = v.Tokenize(p.Message)
	}
}

// SamplingRequest is a copy of an upstream's sampling request for s with
// the text it shows the model tokenized.
func (st *piiState) SamplingRequest(s passthrough.Session, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams {
	v := st.outbound(own(s), up, "sampling/createMessage")
	if v == nil || p == nil {
		return p
	}
	cp := *p
	cp.SystemPrompt = v.Tokenize(p.SystemPrompt)
	cp.Messages = make([]*mcp.SamplingMessageV2, len(p.Messages))
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		mc := *m
		mc.Content = make([]mcp.Content, len(m.Content))
		for j, c := range m.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				tc := *t
				tc.Text = v.Tokenize(t.Text)
				c = &tc
			}
			mc.Content[j] = c
		}
		cp.Messages[i] = &mc
	}
	return &cp
}

// ElicitRequest is a copy of an upstream's elicitation request for s with
// its message tokenized.
func (st *piiState) ElicitRequest(s passthrough.Session, up string, p *mcp.ElicitParams) *mcp.ElicitParams {
	v := st.outbound(own(s), up, "elicitation/create")
	if v == nil || p == nil {
		return p
	}
	cp := *p
	cp.Message = v.Tokenize(p.Message)
	return &cp
}

// shownCode is code as a person may see it on the observer's page: its
// personal data replaced by the session's tokens, minted as the client's
// (the code is its script's), and the tokens it holds already left as
// written.
func (st *piiState) shownCode(ctx context.Context, code string) string {
	v := rewrite.FromContext(ctx)
	if v == nil {
		return code
	}
	raw, err := json.Marshal(code)
	if err != nil {
		return "(code not shown)"
	}
	shown, err := v.ShowJSON(raw)
	var out string
	if err != nil || json.Unmarshal(shown, &out) != nil {
		return "(code not shown: it could not be tokenized)"
	}
	return out
}

// auditCode is a run's code as the audit keeps it (audit.capture_code),
// tokenized like the calls' arguments.
func (st *piiState) auditCode(ctx context.Context, code string) string {
	if v := rewrite.FromContext(ctx); v != nil {
		return v.Tokenize(code)
	}
	return code
}

// auditError is the text of a call's or run's failure as the audit and
// the observer record it, tokenized like everything the model sees; its
// tokens record tool as their origin.
func (st *piiState) auditError(ctx context.Context, tool string, err error) string {
	if v := rewrite.FromContext(ctx); v != nil {
		return v.From(tool).Tokenize(err.Error())
	}
	return err.Error()
}

// shownArgs are a call's arguments as a person (an approval form, the
// observer's page) or the audit may read them, and what each token in
// them stands for. Their personal data is replaced by the session's tokens
// (a script may hold a raw value its author typed: its token records the
// client as its origin); the tokens they hold already stay as they are, so
// the form shows them. The call itself is made with the arguments as
// given.
func (st *piiState) shownArgs(ctx context.Context, args json.RawMessage) (json.RawMessage, []policy.TokenNote) {
	v := rewrite.FromContext(ctx)
	if v == nil || len(args) == 0 {
		return args, nil
	}
	shown, err := v.ShowJSON(args)
	if err != nil {
		return json.RawMessage(`"(arguments not shown: not JSON)"`), nil
	}
	var notes []policy.TokenNote
	for _, tok := range rewrite.FindTokens(string(shown)) {
		if info, ok := v.Describe(tok); ok {
			notes = append(notes, policy.TokenNote{Token: tok, Type: info.Type, Origin: info.Origin,
				Glimpse: info.Glimpse(), Value: info.Value})
		}
	}
	return shown, notes
}

// scrubFunc is what telemetry records through (telemetry.Config.Clean): text
// with the values the vault of ctx holds or mints as their tokens, or,
// where no session is at hand, the detected values as their types
// ([EMAIL]). Nil when PII rewriting is off.
func (st *piiState) scrubFunc() func(context.Context, string) string {
	if st == nil {
		return nil
	}
	return func(ctx context.Context, text string) string {
		if v := rewrite.FromContext(ctx); v != nil {
			return v.ScanOutput(text)
		}
		return st.det.Redact(text)
	}
}
