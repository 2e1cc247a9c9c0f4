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
func (s *piiState) outbound(ss *mcp.ServerSession, up string) *rewrite.Vault {
	if s == nil || s.trusted[up] {
		return nil
	}
	return s.sessionVault(ss)
}

// inbound is the vault that restores tokens in a client's answer to an
// upstream's request: trusted upstreams get real values too.
func (s *piiState) inbound(ss *mcp.ServerSession) *rewrite.Vault {
	return s.sessionVault(ss)
}

// logFor is a tokenized copy of a logging notification for ss.
func (s *piiState) logFor(ss *mcp.ServerSession, up string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams {
	v := s.outbound(ss, up)
	if v == nil || p == nil {
		return p
	}
	cp := *p
	v.TokenizeLog(&cp)
	return &cp
}

// progressFor tokenizes a progress notification's message (p is already a copy).
func (s *piiState) progressFor(ss *mcp.ServerSession, up string, p *mcp.ProgressNotificationParams) {
	if v := s.outbound(ss, up); v != nil {
		p.Message = v.Tokenize(p.Message)
	}
}

// samplingFor is a copy of a sampling request for ss with the text it
// shows the model tokenized.
func (s *piiState) samplingFor(ss *mcp.ServerSession, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams {
	v := s.outbound(ss, up)
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
func (s *piiState) samplingBack(ss *mcp.ServerSession, res *mcp.CreateMessageWithToolsResult) {
	v := s.inbound(ss)
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
func (s *piiState) elicitFor(ss *mcp.ServerSession, up string, p *mcp.ElicitParams) *mcp.ElicitParams {
	v := s.outbound(ss, up)
	if v == nil || p == nil {
		return p
	}
	cp := *p
	cp.Message = v.Tokenize(p.Message)
	return &cp
}

// elicitBack restores tokens in what the client answered.
func (s *piiState) elicitBack(ss *mcp.ServerSession, res *mcp.ElicitResult) {
	v := s.inbound(ss)
	if v == nil || res == nil || res.Content == nil {
		return
	}
	if m, ok := v.DetokenizeValue(res.Content).(map[string]any); ok {
		res.Content = m
	}
}
