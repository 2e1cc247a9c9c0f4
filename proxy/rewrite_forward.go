package proxy

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/rewrite"
)

// What an upstream sends a client outside a request of the client's own —
// logging and progress notifications, sampling and elicitation requests —
// passes the rewrite here instead of in rewriteMiddleware: each target
// session gets its own copy, tokenized with its own vault, and what the
// client answers is detokenized on its way back to the upstream.

// outbound is the vault for content upstream up sends to client session
// ss, or nil (nothing to do) when PII is off or up is trusted.
func (st *piiState) outbound(s *Session, up string) *rewrite.Vault {
	if st == nil || s == nil || st.trusted[up] {
		return nil
	}
	return s.vault
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
	v := st.outbound(s, up)
	if v == nil || p == nil {
		return p
	}
	cp := *p
	v.TokenizeLog(&cp)
	return &cp
}

// progressFor tokenizes a progress notification's message (p is already a copy).
func (st *piiState) progressFor(s *Session, up string, p *mcp.ProgressNotificationParams) {
	if v := st.outbound(s, up); v != nil {
		p.Message = v.Tokenize(p.Message)
	}
}

// samplingFor is a copy of a sampling request for ss with the text it
// shows the model tokenized.
func (st *piiState) samplingFor(s *Session, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams {
	v := st.outbound(s, up)
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

// samplingBack restores tokens in the model's answer before the upstream sees it.
func (st *piiState) samplingBack(s *Session, res *mcp.CreateMessageWithToolsResult) {
	v := st.inbound(s)
	if v == nil || res == nil {
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
	v := st.outbound(s, up)
	if v == nil || p == nil {
		return p
	}
	cp := *p
	cp.Message = v.Tokenize(p.Message)
	return &cp
}

// elicitBack restores tokens in what the client answered.
func (st *piiState) elicitBack(s *Session, res *mcp.ElicitResult) {
	v := st.inbound(s)
	if v == nil || res == nil || res.Content == nil {
		return
	}
	if m, ok := v.DetokenizeValue(res.Content).(map[string]any); ok {
		res.Content = m
	}
}
