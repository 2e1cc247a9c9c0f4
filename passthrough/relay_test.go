package passthrough

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeSession is a client session as a test owner keeps it.
type fakeSession struct {
	name   string
	ctx    context.Context
	level  mcp.LoggingLevel
	routes Routes
}

func (s *fakeSession) Context() context.Context          { return s.ctx }
func (s *fakeSession) LogTag() string                    { return s.name }
func (s *fakeSession) ServerSession() *mcp.ServerSession { return nil }
func (s *fakeSession) LogLevel() mcp.LoggingLevel        { return s.level }
func (s *fakeSession) SetLogLevel(l mcp.LoggingLevel)    { s.level = l }
func (s *fakeSession) Routes() *Routes                   { return &s.routes }

type sessionKey struct{}

// fakeHub is an owner with sessions and nothing else: the relay needs no
// more of its owner.
type fakeHub struct {
	Hub  // the rest: not called
	live []Session
}

func (h *fakeHub) SessionOf(ctx context.Context) Session {
	if s, ok := ctx.Value(sessionKey{}).(Session); ok {
		return s
	}
	return nil
}

func (h *fakeHub) WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func (h *fakeHub) Sessions() []Session { return h.live }

// TestRelayAttribution: the relay, given only a Hub, picks the client
// session an upstream's request goes to in the order relay.go documents:
// the handler's own session, the latest request in flight to that
// upstream, the last session to use it, the last session seen.
func TestRelayAttribution(t *testing.T) {
	alice := &fakeSession{name: "alice", ctx: context.Background()}
	bob := &fakeSession{name: "bob", ctx: context.Background()}
	hub := &fakeHub{live: []Session{alice, bob}}
	var seq atomic.Uint64
	r := newRelay(hub, &seq, slog.New(slog.DiscardHandler))
	ctx := context.Background()

	alice.routes.Seen(seq.Add(1))
	bob.routes.Seen(seq.Add(1))
	if s, _, how := r.pick(ctx, "calc"); s != bob {
		t.Fatalf("nothing in flight: picked %v (%s), want bob, the last seen", s, how)
	}
	endA := r.begin("calc", alice, ctx)
	if s, _, how := r.pick(ctx, "calc"); s != alice {
		t.Fatalf("alice's request in flight: picked %v (%s), want alice", s, how)
	}
	endB := r.begin("calc", bob, ctx)
	if s, _, how := r.pick(ctx, "calc"); s != bob {
		t.Fatalf("bob's later request in flight: picked %v (%s), want bob", s, how)
	}
	endB()
	if s, _, how := r.pick(ctx, "calc"); s != alice {
		t.Fatalf("only alice's in flight: picked %v (%s), want alice", s, how)
	}
	endA()
	alice.routes.Seen(seq.Add(1))
	if s, _, how := r.pick(ctx, "calc"); s != bob {
		t.Fatalf("none in flight: picked %v (%s), want bob, the last to call calc", s, how)
	}
	if s, _, how := r.pick(hub.WithSession(ctx, alice), "calc"); s != alice || how != "context" {
		t.Fatalf("a handler context of alice's: picked %v (%s), want alice by context", s, how)
	}
}

// TestRelayProgressRoutes: a progress token the relay sent upstream maps
// back to its session and the client's own token, until undone.
func TestRelayProgressRoutes(t *testing.T) {
	alice := &fakeSession{name: "alice", ctx: context.Background()}
	var seq atomic.Uint64
	r := newRelay(&fakeHub{live: []Session{alice}}, &seq, slog.New(slog.DiscardHandler))
	up, undo := r.mapProgress(context.Background(), alice, 7)
	pr, ok := r.progressFor(up)
	if !ok || pr.session != alice || pr.token != 7 {
		t.Fatalf("progressFor(%q) = %+v, %v; want alice's token 7", up, pr, ok)
	}
	undo()
	if _, ok := r.progressFor(up); ok {
		t.Fatalf("progressFor(%q) after undo found a route", up)
	}
}
