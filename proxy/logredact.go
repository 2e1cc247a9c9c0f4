package proxy

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
)

// A session id is a bearer credential: whoever holds it can send requests
// as that session, read its workspace and have its PII tokens restored.
// So it never reaches a log. redactSessions wraps every logger the proxy
// holds and hands on, the go-sdk's included (which logs "server session
// connected" with session_id at INFO): an attribute whose key names a
// session id has its value replaced by SessionTag, an HMAC under a key
// made at start-up, so the lines of one session can still be told apart
// (and matched with its audit lines and spans), but a tag cannot be
// turned back into the id.

// tagKey is the HMAC key of SessionTag, made at start-up.
var tagKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

// SessionTag is what stands for a session id wherever toolfold writes one
// down (logs, the audit, spans): "s-" and eight hex digits, the same for
// the same id in one process, useless to anyone without the process's
// memory; "" for "" (the stdio session).
func SessionTag(id string) string {
	if id == "" {
		return ""
	}
	m := hmac.New(sha256.New, tagKey)
	m.Write([]byte(id))
	return "s-" + hex.EncodeToString(m.Sum(nil)[:4])
}

// sessionIDKeys are attribute keys, folded by foldKey, that carry a
// session id.
var sessionIDKeys = map[string]bool{
	"session": true, "sessionid": true, "mcpsessionid": true, "sid": true,
}

// foldKey lowercases k and drops '-', '_' and '.', so that session_id,
// sessionID and Mcp-Session-Id fold alike.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, k)
}

// redactHandler redacts session ids in the attributes of what it handles.
type redactHandler struct{ next slog.Handler }

// redactSessions returns log with session ids redacted (see above).
func redactSessions(log *slog.Logger) *slog.Logger {
	if _, ok := log.Handler().(*redactHandler); ok {
		return log
	}
	return slog.New(&redactHandler{next: log.Handler()})
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.redact(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.redact(a)
	}
	return &redactHandler{next: h.next.WithAttrs(red)}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{next: h.next.WithGroup(name)}
}

// redact replaces the value of a session id attribute with its tag, in
// groups too.
func (h *redactHandler) redact(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch {
	case v.Kind() == slog.KindGroup:
		g := v.Group()
		red := make([]slog.Attr, len(g))
		for i, ga := range g {
			red[i] = h.redact(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case sessionIDKeys[foldKey(a.Key)] && !isTag(v.String()):
		return slog.String(a.Key, SessionTag(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// isTag reports whether s is already a SessionTag (the go-sdk's ids are 26
// upper-case base32 characters, never one).
func isTag(s string) bool {
	if len(s) != 10 || !strings.HasPrefix(s, "s-") {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil && strings.ToLower(s) == s
}
