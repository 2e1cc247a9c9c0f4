package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/shorten"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Kinds of records.
const (
	KindCall = "call" // one upstream tool call (a script's, a skill's, a passthrough tool's)
	KindRun  = "run"  // one run_script run (or a skill run)
	// KindFlow is one decision to restore a PII token into a call
	// (pii.flows): the token, its type and origin, the tool called (Tool),
	// the rule and the decision; never the value.
	KindFlow = "flow"
)

// MaxArgs bounds the arguments an entry keeps: past it they are cut, with
// a notice of how many bytes were cut.
const MaxArgs = 64 << 10

// Record is what the proxy knows about one call or run. Write turns it
// into an Entry: one JSON line.
type Record struct {
	Kind     string    // KindCall or KindRun
	Time     time.Time // when it started; zero: when Write is called
	Session  string    // the client session's id
	RunID    string    // the run it belongs to (a call) or is (a run); "" for a direct call
	Language string    // the run's language
	CodeHash string    // CodeHash of the run's code
	Tool     string    // qualified name (a call)
	Decision string    // the policy's action: allow, ask or deny
	Rule     string    // the rule that made it, as policy.Rule.String shows it
	Approval string    // how an ask ended (policy.Outcome); "" when no one was asked
	Duration time.Duration
	// ResultBytes is the size of the result (a call's, or what a run
	// returned to the model).
	ResultBytes int
	IsError     bool
	// Error is the error's message, shortened; "" when none.
	Error   string
	TraceID string // the OpenTelemetry trace id, hex; "" without tracing
	// Args are the call's arguments as the model sees them: tokenized by
	// the caller (never raw personal data). Write keeps them whole up to
	// MaxArgs.
	Args json.RawMessage
	// Calls is the number of tool calls a run made.
	Calls int
	// Token, TokenType and Origin describe the token of a KindFlow
	// record: "[EMAIL_1]", "EMAIL", the tool whose result minted it.
	Token, TokenType, Origin string
	// Code is a run's code, tokenized by the caller; Write keeps it only
	// when the Log captures code (audit.capture_code).
	Code string
}

// Entry is one line of the audit file.
type Entry struct {
	Time        time.Time `json:"time"`
	Kind        string    `json:"kind"`
	Session     string    `json:"session,omitempty"`
	RunID       string    `json:"run_id,omitempty"`
	Language    string    `json:"language,omitempty"`
	CodeHash    string    `json:"code_hash,omitempty"`
	Tool        string    `json:"tool,omitempty"`
	Decision    string    `json:"decision,omitempty"`
	Rule        string    `json:"rule,omitempty"`
	Approval    string    `json:"approval,omitempty"`
	DurationMS  float64   `json:"duration_ms"`
	ResultBytes int       `json:"result_bytes"`
	IsError     bool      `json:"is_error"`
	Error       string    `json:"error,omitempty"`
	TraceID     string    `json:"trace_id,omitempty"`
	Args        string    `json:"args,omitempty"` // the JSON as it was, cut past MaxArgs with a notice
	Calls       int       `json:"calls,omitempty"`
	Token       string    `json:"token,omitempty"`
	TokenType   string    `json:"token_type,omitempty"`
	Origin      string    `json:"origin,omitempty"`
	Code        string    `json:"code,omitempty"` // a run's tokenized code, with audit.capture_code
}

// Options changes how a Log works. The zero value (or nil) is what
// serve wants.
type Options struct {
	// Logger receives write failures (the calls go on); nil discards.
	Logger *slog.Logger
	// Now stamps records without a Time; nil is time.Now.
	Now func() time.Time
}

// Log writes audit records to a file, rotating it by size. A nil *Log
// records nothing (the audit is off); every method is safe on it. A Log
// is safe for concurrent use.
type Log struct {
	file string
	log  *slog.Logger
	now  func() time.Time

	captureCode bool

	mu     sync.Mutex
	w      *lumberjack.Logger
	failed bool // a write failed and was logged; log again only after a success
}

// Open opens the audit file cfg names (a validated config.Audit),
// creating its directory (0700) and the file (0600). With no file it
// returns nil: the audit is off.
func Open(cfg config.Audit, opts *Options) (*Log, error) {
	if cfg.File == "" {
		return nil, nil
	}
	if opts == nil {
		opts = &Options{}
	}
	if err := os.MkdirAll(filepath.Dir(cfg.File), 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	f, err := os.OpenFile(cfg.File, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w (audit.file in the config)", err)
	}
	f.Close()
	l := &Log{file: cfg.File, log: opts.Logger, now: opts.Now, captureCode: cfg.CaptureCode,
		w: &lumberjack.Logger{Filename: cfg.File, MaxSize: max(cfg.MaxSizeMB, 1), MaxBackups: cfg.MaxBackups}}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l, nil
}

// File is the audit file's path; "" when the audit is off.
func (l *Log) File() string {
	if l == nil {
		return ""
	}
	return l.file
}

// CapturesCode reports whether runs' code is kept (audit.capture_code), so
// that a caller tokenizes it only when it will be written.
func (l *Log) CapturesCode() bool {
	return l != nil && l.captureCode
}

// Write appends r as one JSON line. A failure is returned and logged
// (once until a write succeeds again); the caller carries on.
func (l *Log) Write(r Record) error {
	if l == nil {
		return nil
	}
	if r.Time.IsZero() {
		r.Time = l.now()
	}
	if !l.captureCode {
		r.Code = ""
	}
	b, err := json.Marshal(entry(r))
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return fmt.Errorf("audit: %s is closed", l.file)
	}
	if _, err = l.w.Write(b); err != nil {
		if !l.failed {
			l.log.Error("audit: writing failed; calls go on unrecorded until it works again", "file", l.file, "err", err)
		}
		l.failed = true
		return fmt.Errorf("audit: %w", err)
	}
	l.failed = false
	return nil
}

// Close closes the file; later writes fail.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return nil
	}
	err := l.w.Close()
	l.w = nil
	return err
}

// entry turns a record into its line.
func entry(r Record) Entry {
	e := Entry{
		Time: r.Time.UTC(), Kind: r.Kind, Session: r.Session, RunID: r.RunID, Language: r.Language,
		CodeHash: r.CodeHash, Tool: r.Tool, Decision: r.Decision, Rule: r.Rule, Approval: r.Approval,
		DurationMS:  float64(r.Duration.Microseconds()) / 1000,
		ResultBytes: r.ResultBytes, IsError: r.IsError, TraceID: r.TraceID, Calls: r.Calls,
		Error: shorten.Text(r.Error, 200), Token: r.Token, TokenType: r.TokenType, Origin: r.Origin, Code: r.Code,
	}
	if len(r.Args) > 0 {
		e.Args = shorten.Text(compactJSON(r.Args), MaxArgs)
	}
	return e
}

// compactJSON is raw without insignificant space; raw as it is when it
// is no JSON.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// CodeHash identifies a run's code without recording it: "sha256:" and
// the first 16 hex digits of its SHA-256.
func CodeHash(code string) string {
	h := sha256.Sum256([]byte(code))
	return "sha256:" + hex.EncodeToString(h[:8])
}
