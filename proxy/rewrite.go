package proxy

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// PII tokenization (issue 5) is wired in three places:
//
//  1. clientChain's session entry (sessionMiddleware, session.go) puts the
//     client session's vault in the context of every request that session
//     makes (vaults are per client session, made on its first request, dropped when the
//     session ends).
//  2. Everything toolfold does for that request descends from that
//     context: run_script's bridge calls scriptHost.Call with it, which
//     calls the shared upstream session with it. A run without a client
//     session (RunScript from a command or a test) gets a vault of its own.
//  3. upstreamChain's rewriteMiddleware, innermost on the upstream edge,
//     takes the vault from the context: it restores tokens in what goes
//     to the upstream and has the tokenizer (tokenizer.go, piiState.answer)
//     tokenize what comes back, so the upstream sessions can stay shared
//     between client sessions, and the log and trace middlewares around
//     it only ever see tokens.
//
// What is tokenized on every other path toward the client is listed, each
// with its one method, in tokenizer.go.

// piiState is the proxy's PII policy and its client sessions' vaults.
type piiState struct {
	det     *rewrite.Detector
	limits  rewrite.Limits
	trusted map[string]bool
	flows   *policy.Flows // pii.flows: where a token's value may go (flows.go)
	guard   *guard        // for the audit of flow decisions; nil: none
}

// newPIIState builds the policy of cfg; nil when PII rewriting is off.
func newPIIState(cfg config.PII, log *slog.Logger) *piiState {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Disabled {
		return nil
	}
	opts := rewrite.Options{Detectors: map[string]bool{}, PhoneRegions: cfg.PhoneRegions, Allow: cfg.Allow}
	for _, n := range rewrite.DetectorNames() {
		opts.Detectors[n] = cfg.DetectorOn(n)
	}
	for _, c := range cfg.Custom {
		opts.Custom = append(opts.Custom, rewrite.CustomPattern{Name: c.Name, Pattern: c.Pattern})
	}
	det, err := rewrite.NewDetector(opts)
	if err != nil {
		// config.Load checked all of this; never fall open.
		log.Error("pii config rejected; using the default detectors", "err", err)
		det, _ = rewrite.NewDetector(rewrite.Defaults())
	}
	s := &piiState{
		det:     det,
		limits:  rewrite.Limits{MaxEntries: cfg.VaultMaxEntries, MaxBytes: cfg.VaultMaxBytes, TTL: cfg.VaultTTL},
		trusted: make(map[string]bool),
		flows:   policy.NewFlows(cfg.Flows),
	}
	for _, n := range cfg.TrustedUpstreams {
		s.trusted[n] = true
	}
	return s
}

// RedactLogger is log with the personal data its records quote (a
// script's error, a child's stderr, a failed request's message) replaced
// by its type ([EMAIL]), as cfg detects it; log itself when PII rewriting
// is off. cmd/toolfold gives it to every component, the sandbox's
// included.
func RedactLogger(cfg config.PII, log *slog.Logger) *slog.Logger {
	s := newPIIState(cfg, log)
	if s == nil || log == nil {
		return log
	}
	return slog.New(s.det.LogHandler(log.Handler()))
}

// newVault is a fresh vault: each client session has one (session.go),
// and so has each run made outside a client session. Nil when PII
// rewriting is off.
func (s *piiState) newVault() *rewrite.Vault {
	if s == nil {
		return nil
	}
	return rewrite.NewVault(s.det, s.limits)
}

// newVaultFunc is newVault as a function, nil when PII rewriting is off.
func (s *piiState) newVaultFunc() func() *rewrite.Vault {
	if s == nil {
		return nil
	}
	return s.newVault
}

// redactFunc replaces personal data in text no session owns (an
// upstream's stderr) by its type; nil when PII rewriting is off.
func (s *piiState) redactFunc() func(string) string {
	if s == nil {
		return nil
	}
	return s.det.Redact
}

// withVault returns ctx carrying v and the policy.
func (s *piiState) withVault(ctx context.Context, v *rewrite.Vault) context.Context {
	return context.WithValue(rewrite.NewContext(ctx, v), piiKey{}, s)
}

type piiKey struct{}

// scriptContext makes sure a script's calls carry a vault: the client
// session's, or one for this run alone.
func (s *piiState) scriptContext(ctx context.Context, h *scriptHost) context.Context {
	if s == nil || rewrite.FromContext(ctx) != nil {
		return ctx
	}
	h.once.Do(func() { h.vault = s.newVault() })
	return s.withVault(ctx, h.vault)
}

// rewriteMiddleware restores tokens in requests to the upstream named up
// and tokenizes its answers, with the vault the context carries. Without
// one (PII off, or toolfold's own requests such as tools/list) requests
// pass unchanged. A trusted upstream's answers are not tokenized. A token
// is restored only where pii.flows lets its value go to the request's
// destination (flows.go); the tokens minted from an answer remember the
// tool that gave it.
func rewriteMiddleware(up string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			v := rewrite.FromContext(ctx)
			if v == nil {
				return next(ctx, method, req)
			}
			s, _ := ctx.Value(piiKey{}).(*piiState)
			if err := s.checkFlows(ctx, v, up, req); err != nil {
				return nil, err
			}
			req = detokenizeRequest(v, req)
			res, err := next(ctx, method, req)
			return res, s.answer(ctx, up, originOf(up, method, req), res, err) // tokenizer.go
		}
	}
}

// detokenizeRequest returns req with tokens restored in its arguments: a
// copy, so that the middlewares outside (log, trace) keep seeing tokens;
// req itself when a tool call's JSON arguments hold no token.
func detokenizeRequest(v *rewrite.Vault, req mcp.Request) mcp.Request {
	r, ok := req.(*mcp.ClientRequest[mcp.Params])
	if !ok {
		return req
	}
	var params mcp.Params
	switch p := r.Params.(type) {
	case *mcp.CallToolParams:
		args := v.DetokenizeArgs(p.Arguments)
		if sameBytes(args, p.Arguments) {
			return req
		}
		q := *p
		q.Arguments = args
		params = &q
	case *mcp.ReadResourceParams:
		q := *p
		q.URI = v.Detokenize(p.URI)
		params = &q
	case *mcp.GetPromptParams:
		q := *p
		q.Arguments = make(map[string]string, len(p.Arguments))
		for k, a := range p.Arguments {
			q.Arguments[k] = v.Detokenize(a)
		}
		params = &q
	default:
		return req
	}
	out := *r
	out.Params = params
	return &out
}

// sameBytes reports JSON arguments returned as they were (the same bytes,
// not a copy): nothing was restored.
func sameBytes(a, b any) bool {
	ra, ok := a.(json.RawMessage)
	rb, ok2 := b.(json.RawMessage)
	return ok && ok2 && len(ra) == len(rb) && len(ra) > 0 && &ra[0] == &rb[0]
}
