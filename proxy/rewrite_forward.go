package proxy

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// What an upstream sends a client outside a request of the client's own —
// logging and progress notifications, sampling and elicitation requests —
// is tokenized for each target session, a copy with its own vault, by the
// tokenizer (tokenizer.go: logMessage, progressMessage, samplingRequest,
// elicitRequest); what the client answers is detokenized here on its way
// back to the upstream, where pii.flows lets it go.

// inbound is the vault that restores tokens in a client's answer to an
// upstream's request: trusted upstreams get real values too.
func (st *piiState) inbound(s *Session) *rewrite.Vault {
	if st == nil || s == nil {
		return nil
	}
	return s.vault
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
