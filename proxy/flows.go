package proxy

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// Where a token's value may go (pii.flows, issue 29). Restoring a token
// into a call lets the value leave the tool whose result minted it, so it
// is decided, in two places:
//
//   - callChain's flows entry (flowsMiddleware) decides, before the call,
//     every token a tool call's arguments hold: a deny refuses the call, an
//     ask puts one approval form to the person (the policy's form, with
//     the flows listed). What it allowed travels in the context to the
//     upstream edge as a flowPermit.
//   - rewriteMiddleware, on the upstream edge, restores a token only where
//     the permit or the rules allow it (checkFlows): so a path that skips
//     callChain (a passthrough resources/read, prompts/get) is decided
//     there, by the rules alone, since no person can be asked there.
//
// Every decision is one audit line (kind "flow"): token, type, origin,
// destination, rule, decision, approval; never the value.

// flowPermit is what the flows entry allowed for one call: the tokens the
// upstream edge may restore into a call of tool.
type flowPermit struct {
	tool   string
	tokens map[string]bool
}

type permitKey struct{}

// flowsMiddleware is callChain's "flows" entry (see above). A skill's
// call restores nothing (the skill's own calls are decided each in turn).
func (g *guard) flowsMiddleware() callMiddleware {
	return func(next callFunc) callFunc {
		return func(ctx context.Context, c toolCall) (callResult, error) {
			v := rewrite.FromContext(ctx)
			if v == nil || policy.ServerOf(c.Name) == config.SkillsUpstream {
				return next(ctx, c)
			}
			toks := v.TokensIn(c.Args)
			if len(toks) == 0 {
				return next(ctx, c)
			}
			fc := policy.FlowCall{Call: policy.Call{Tool: policy.Tool{Name: c.Name}, RunID: runOf(ctx).id, Reveal: g.reveal}}
			for _, t := range toks {
				fc.Flows = append(fc.Flows, policy.Flow{Token: t.Token, Type: t.Type, Origins: t.Origins, To: c.Name})
			}
			fc.Args, fc.Tokens = g.pii.shownArgs(ctx, c.Args)
			var approvals *policy.Approvals
			if s := sessionOf(ctx); s != nil {
				approvals = &s.approvals
			}
			ask := g.observed(ctx, askerOf(ctx), func() Approval {
				return approvalOf(c.Name, fc.Args, "values would leave the server they came from (pii.flows)", fc.Tokens)
			})
			vs, err := g.pol.AuthorizeFlows(ctx, g.flows, fc, approvals, pausing(ask))
			for _, fv := range vs {
				g.recordFlow(ctx, fv)
			}
			if err != nil {
				return callResult{}, err
			}
			permit := flowPermit{tool: c.Name, tokens: map[string]bool{}}
			for _, t := range toks {
				permit.tokens[t.Token] = true
			}
			return next(context.WithValue(ctx, permitKey{}, permit), c)
		}
	}
}

// recordFlow writes the audit line of one flow decision made for ctx's
// session and run.
func (g *guard) recordFlow(ctx context.Context, fv policy.FlowVerdict) {
	g.recordFlowIn(auditSession(sessionOf(ctx)), runOf(ctx).id, fv)
}

// recordFlowIn writes the audit line of one flow decision.
func (g *guard) recordFlowIn(session, run string, fv policy.FlowVerdict) {
	if g == nil || g.audit == nil {
		return
	}
	_ = g.audit.Write(audit.Record{Kind: audit.KindFlow, Time: time.Now(), Session: session,
		RunID: run, Tool: fv.To, Token: fv.Token, TokenType: fv.Type, Origin: fv.From,
		Decision: string(fv.Action), Rule: fv.Rule.String(), Approval: string(fv.Approval)})
}

// checkFlows decides, on the upstream edge of up, the tokens req would
// have restored: those the flows entry allowed for this very call pass,
// the rest by the rules alone (an ask refuses: no person can be asked
// here). The error is a *policy.FlowRefusal.
func (st *piiState) checkFlows(ctx context.Context, v *rewrite.Vault, up string, req mcp.Request) error {
	dest, toks := flowTarget(v, up, req)
	if len(toks) == 0 {
		return nil
	}
	var flows *policy.Flows // no state: the defaults
	var g *guard
	if st != nil {
		flows, g = st.flows, st.guard
	}
	permit, _ := ctx.Value(permitKey{}).(flowPermit)
	for _, t := range toks {
		if permit.tool == dest && permit.tokens[t.Token] {
			continue
		}
		fl := policy.Flow{Token: t.Token, Type: t.Type, Origins: t.Origins, To: dest}
		d := flows.Decide(fl)
		fv := policy.FlowVerdict{Flow: fl, FlowDecision: d}
		switch d.Action {
		case policy.Deny:
			g.recordFlow(ctx, fv)
			return &policy.FlowRefusal{Flow: fl, Decision: d, Reason: policy.ReasonDenied}
		case policy.Ask:
			fv.Approval = policy.OutcomeUnavailable
			g.recordFlow(ctx, fv)
			return &policy.FlowRefusal{Flow: fl, Decision: d, Reason: policy.ReasonNoElicitation, Err: errNoPersonHere}
		}
		g.recordFlow(ctx, fv)
	}
	return nil
}

// errNoPersonHere is why an ask on the upstream edge is refused.
var errNoPersonHere = errorString("a person can be asked only about tool calls, and this request is none")

type errorString string

func (e errorString) Error() string { return string(e) }

// flowTarget is where req goes (server.tool; SERVER.resources/read and
// SERVER.prompts/get for the requests that are not tool calls) and the
// tokens of v restoring it would replace.
func flowTarget(v *rewrite.Vault, up string, req mcp.Request) (string, []rewrite.TokenInfo) {
	r, ok := req.(*mcp.ClientRequest[mcp.Params])
	if !ok {
		return "", nil
	}
	switch p := r.Params.(type) {
	case *mcp.CallToolParams:
		return up + "." + p.Name, v.TokensIn(p.Arguments)
	case *mcp.ReadResourceParams:
		return up + ".resources/read", v.TokensIn(p.URI)
	case *mcp.GetPromptParams:
		return up + ".prompts/get", v.TokensIn(p.Arguments)
	}
	return "", nil
}

// originOf is the origin tokens minted from up's answer to req record:
// server.tool for a tool call, SERVER.METHOD for the rest.
func originOf(up, method string, req mcp.Request) string {
	if r, ok := req.(*mcp.ClientRequest[mcp.Params]); ok {
		if p, ok := r.Params.(*mcp.CallToolParams); ok {
			return up + "." + p.Name
		}
	}
	return up + "." + method
}

// resourceOwner is the upstream behind an exposed resource URI; "" when
// none is known.
func (p *Proxy) resourceOwner(uri string) string {
	if p.fwd == nil {
		return ""
	}
	return p.fwd.ResourceOwner(uri)
}

// What an upstream sends a client outside a request of the client's own —
// logging and progress notifications, sampling and elicitation requests —
// is tokenized for each target session, a copy with its own vault, by the
// tokenizer (tokenizer.go: LogMessage, ProgressMessage, SamplingRequest,
// ElicitRequest); what the client answers is detokenized here on its way
// back to the upstream, where pii.flows lets it go.

// inbound is the vault that restores tokens in a client's answer to an
// upstream's request: trusted upstreams get real values too.
func (st *piiState) inbound(s *Session) *rewrite.Vault {
	if st == nil || s == nil {
		return nil
	}
	return s.vault
}

// SamplingBack restores tokens in the model's answer before the upstream
// sees it, where pii.flows lets every one of them go to up.
func (st *piiState) SamplingBack(ps passthrough.Session, up string, res *mcp.CreateMessageWithToolsResult) {
	s := own(ps)
	v := st.inbound(s)
	if v == nil || res == nil {
		return
	}
	var texts []any
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if !st.mayRestore(s, v, up+".sampling/createMessage", texts) {
		return
	}
	for i, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			tc := *t
			tc.Text = v.Detokenize(t.Text)
			res.Content[i] = &tc
		}
	}
}

// ElicitBack restores tokens in what the client answered, where
// pii.flows lets every one of them go to up.
func (st *piiState) ElicitBack(ps passthrough.Session, up string, res *mcp.ElicitResult) {
	s := own(ps)
	v := st.inbound(s)
	if v == nil || res == nil || res.Content == nil || !st.mayRestore(s, v, up+".elicitation/create", res.Content) {
		return
	}
	if m, ok := v.DetokenizeValue(res.Content).(map[string]any); ok {
		res.Content = m
	}
}

// mayRestore decides, by the pii.flows rules alone (no person can be asked
// about an answer), whether the tokens of v in x may go to dest: when one
// may not, none is restored and the upstream gets the tokens as they are.
// Each decision is audited.
func (st *piiState) mayRestore(s *Session, v *rewrite.Vault, dest string, x any) bool {
	for _, t := range v.TokensIn(x) {
		fl := policy.Flow{Token: t.Token, Type: t.Type, Origins: t.Origins, To: dest}
		fv := policy.FlowVerdict{Flow: fl, FlowDecision: st.flows.Decide(fl)}
		if fv.Action == policy.Ask {
			fv.Approval = policy.OutcomeUnavailable
		}
		st.guard.recordFlowIn(auditSession(s), "", fv)
		if fv.Action != policy.Allow {
			return false
		}
	}
	return true
}
