package passthrough

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Logging levels and _meta across the hop between a client and an upstream.

// logLevels orders MCP logging levels, most verbose first.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LevelRank is l's place in logLevels: a lower rank is more verbose; an
// unknown level ranks last.
func LevelRank(l mcp.LoggingLevel) int {
	for i, v := range logLevels {
		if v == l {
			return i
		}
	}
	return len(logLevels)
}

// setLevel records a session's level and sets every shared upstream to
// the most verbose level any live session asked for, and the session's
// own instances (scope: session) to its level; each session still gets
// only what its own level lets through (ServerSession.Log filters).
func (f *Forwarder) setLevel(ctx context.Context, s Session, l mcp.LoggingLevel) {
	s.SetLogLevel(l)
	min := f.currentLevel()
	for _, st := range f.pool.Status() {
		if cs, err := f.pool.Session(st.Name); err == nil {
			f.sendLevel(ctx, st.Name, cs, min)
		}
	}
	// The session's own instances (scope: session) serve it alone.
	for name, cs := range f.pool.InstancesOf(s) {
		f.sendLevel(ctx, name, cs, l)
	}
}

func (f *Forwarder) sendLevel(ctx context.Context, up string, cs *mcp.ClientSession, l mcp.LoggingLevel) {
	if l == "" {
		return
	}
	if init := cs.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil ||
		init.ProtocolVersion >= "2026-07-28" {
		return // 2026-07-28 has no logging/setLevel: outMeta puts the level in each request
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.timeout(up, false))
	defer cancel()
	if err := cs.SetLoggingLevel(cctx, &mcp.SetLoggingLevelParams{Level: l}); err != nil {
		f.log.Warn("forwarding logging/setLevel failed", "upstream", up, "err", err)
	}
}

// currentLevel is the most verbose level a live session asked for.
func (f *Forwarder) currentLevel() mcp.LoggingLevel {
	var min mcp.LoggingLevel
	for _, s := range f.relay.live() {
		if lv := s.LogLevel(); lv != "" && (min == "" || LevelRank(lv) < LevelRank(min)) {
			min = lv
		}
	}
	return min
}

// hopMeta is a client's _meta as it goes upstream: the protocol's per-hop
// keys (io.modelcontextprotocol/protocolVersion, clientInfo, ... of the
// 2026-07-28 protocol) describe the client's connection to toolfold, not
// toolfold's to the upstream, so they stay behind; the log level a request
// asks for, the progress token and everything else go on. Nil when
// nothing does (a 2026-07-28 client's _meta often holds only per-hop keys).
func hopMeta(m mcp.Meta) mcp.Meta {
	var out mcp.Meta
	for k, v := range m {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") && k != mcp.MetaKeyLogLevel {
			continue
		}
		if out == nil {
			out = make(mcp.Meta, len(m))
		}
		out[k] = v
	}
	return out
}

// outMeta is hopMeta plus, when the client's request names no log level,
// the level its session set with logging/setLevel: a 2026-07-28 upstream
// takes the level from each request's _meta, not from logging/setLevel.
func (f *Forwarder) outMeta(ctx context.Context, m mcp.Meta) mcp.Meta {
	out := hopMeta(m)
	s := f.hub.SessionOf(ctx)
	if s == nil {
		return out
	}
	if _, ok := out[mcp.MetaKeyLogLevel]; ok {
		return out
	}
	l := s.LogLevel()
	if l == "" {
		return out
	}
	if out == nil {
		out = mcp.Meta{}
	}
	out[mcp.MetaKeyLogLevel] = string(l)
	return out
}

// resultMeta is an upstream result's _meta as it goes to the client: the
// protocol's per-hop keys (the upstream's serverInfo, ...) stay behind.
// Without such keys m is returned as it is: the result was just decoded
// and is the caller's. (hopMeta always copies: the SDK client writes its
// per-hop keys into the _meta of the request it sends.)
func resultMeta(m mcp.Meta) mcp.Meta {
	found := false
	for k := range m {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			found = true
			break
		}
	}
	if !found {
		return m
	}
	out := make(mcp.Meta, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
			out[k] = v
		}
	}
	return out
}
