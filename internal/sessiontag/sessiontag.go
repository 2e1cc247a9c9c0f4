// Package sessiontag names a session without giving its id away: a
// session id is a bearer credential, so logs, the audit and spans carry
// its tag instead (Of), and Redact wraps a logger so that no session id
// attribute reaches it.
package sessiontag

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"

	"github.com/toolfold/toolfold/internal/slogwalk"
)

// A session id is a bearer credential: whoever holds it can send requests
// as that session, read its workspace and have its PII tokens restored.
// So it never reaches a log. Redact wraps every logger the proxy
// holds and hands on, the go-sdk's included (which logs "server session
// connected" with session_id at INFO): an attribute whose key names a
// session id has its value replaced by Of, an HMAC under a key
// made at start-up, so the lines of one session can still be told apart
// (and matched with its audit lines and spans), but a tag cannot be
// turned back into the id.

// tagKey is the HMAC key of Of, made at start-up.
var tagKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

// Of is what stands for a session id wherever toolfold writes one
// down (logs, the audit, spans): "s-" and eight hex digits, the same for
// the same id in one process, useless to anyone without the process's
// memory; "" for "" (the stdio session).
func Of(id string) string {
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

// Redact returns log with session ids redacted (see above).
func Redact(log *slog.Logger) *slog.Logger {
	if slogwalk.Wraps(log.Handler(), "sessions") {
		return log
	}
	return slog.New(slogwalk.New(log.Handler(), "sessions", slogwalk.Funcs{Attr: redactSessionID}))
}

// redactSessionID replaces the value of a session id attribute with its
// tag.
func redactSessionID(a slog.Attr) slog.Attr {
	if v := a.Value.String(); sessionIDKeys[foldKey(a.Key)] && !isTag(v) {
		return slog.String(a.Key, Of(v))
	}
	return a
}

// isTag reports whether s is already a tag (the go-sdk's ids are 26
// upper-case base32 characters, never one).
func isTag(s string) bool {
	if len(s) != 10 || !strings.HasPrefix(s, "s-") {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil && strings.ToLower(s) == s
}
