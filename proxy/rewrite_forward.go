package proxy

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// What an upstream sends a client outside a request of the client's own —
// logging and progress notifications, sampling and elicitation requests —
// passes the rewrite here instead of in rewriteMiddleware: each target
// session gets its own copy, tokenized with its own vault, and what the
// client answers is detokenized on its way back to the upstream.

// outbound is the vault for content upstream up sends to client session
// ss, as method, or nil (nothing to do) when PII is off or up is trusted.
// What it mints records up.method as its origin.
func (st *piiState) outbound(s *Session, up, method string) *rewrite.Vault {
	if st == nil || s == nil || st.trusted[up] {
		return nil
	}
	return s.vault.From(up + "." + method)
}

// inbound is the vault that restores tokens in a client's answer to an
// upstream's request: trusted upstreams get real values too.
func (st *piiState) inbound(s *Session) *rewrite.Vault {
	if st == nil || s == nil {
		return nil
	}
	return s.vault
}

// logFor is a tokenized copy of a logging notification for ss.
func (st *piiState) logFor(s *Session, up string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams {
	v := st.outbound(s, up, "notifications/message")
	if v == nil || p == nil {
		return p
	}
	cp := *p
	v.TokenizeLog(&cp)
	return &cp
}

// progressFor tokenizes a progress notification's message (p is already a copy).
func (st *piiState) progressFor(s *Session, up string, p *mcp.ProgressNotificationParams) {
	if v := st.outbound(s, up, "notifications/progress"); v != nil {
		p.Message = v.Tokenize(p.Message)
	}
}

// samplingFor is a copy of a sampling request for ss with the text it
// shows the model tokenized.
func (st *piiState) samplingFor(s *Session, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams {
	v := st.outbound(s, up, "sampling/createMessage")
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

// samplingBack restores tokens in the model's answer before the upstream
// sees it, where pii.flows lets every one of them go to up.
func (st *piiState) samplingBack(s *Session, up string, res *mcp.CreateMessageWithToolsResult) {
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

// elicitFor is a copy of an elicitation request for ss with its message tokenized.
func (st *piiState) elicitFor(s *Session, up string, p *mcp.ElicitParams) *mcp.ElicitParams {
	v := st.outbound(s, up, "elicitation/create")
	if v == nil || p == nil {
		return p
	}
	cp := *p
	cp.Message = v.Tokenize(p.Message)
	return &cp
}

// elicitBack restores tokens in what the client answered, where
// pii.flows lets every one of them go to up.
func (st *piiState) elicitBack(s *Session, up string, res *mcp.ElicitResult) {
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
