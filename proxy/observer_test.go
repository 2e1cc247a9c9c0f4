package proxy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/policy"
)

// pageObserver records what the proxy tells it and answers every ask
// with answer, as a person on the dashboard would.
type pageObserver struct {
	answer string
	mu     sync.Mutex
	starts []RunStart
	recs   []audit.Record
	ends   []RunEnd
	asks   []Approval
}

func (o *pageObserver) RunStarted(s RunStart) {
	o.mu.Lock()
	o.starts = append(o.starts, s)
	o.mu.Unlock()
}
func (o *pageObserver) Recorded(r audit.Record) {
	o.mu.Lock()
	o.recs = append(o.recs, r)
	o.mu.Unlock()
}
func (o *pageObserver) RunEnded(e RunEnd) { o.mu.Lock(); o.ends = append(o.ends, e); o.mu.Unlock() }
func (o *pageObserver) Ask(ctx context.Context, a Approval) (*mcp.ElicitResult, error) {
	o.mu.Lock()
	o.asks = append(o.asks, a)
	o.mu.Unlock()
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{policy.ChoiceField: o.answer}}, nil
}

// TestObserverAnswersForAClientThatCannotAsk: with an observer (the
// dashboard), a client without elicitation no longer fails an ask closed:
// the page is asked, its answer holds, and the model is told a person was
// asked there. The observer sees the run start, its calls with their
// decisions and the end, all tokenized.
func TestObserverAnswersForAClientThatCannotAsk(t *testing.T) {
	for _, tc := range []struct {
		answer  string
		created int
		want    string
	}{
		{policy.ChoiceAllowOnce, 1, "notes read"},
		{policy.ChoiceDeny, 0, "the person declined this call"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			n := &notebook{}
			obs := &pageObserver{answer: tc.answer}
			p, _ := startProxyWith(t, policyConfig(t, n), &Options{Observer: obs})
			cs := policyClient(t, p, nil, "")
			text, _ := runLua(t, cs, policyScript)
			for _, w := range []string{tc.want, "a person was asked about 1 call on the toolfold dashboard"} {
				if !strings.Contains(text, w) {
					t.Errorf("run's text lacks %q:\n%s", w, text)
				}
			}
			if got := len(n.list()); got != tc.created {
				t.Errorf("%d notes created, want %d", got, tc.created)
			}
			obs.mu.Lock()
			defer obs.mu.Unlock()
			if len(obs.asks) != 1 || obs.asks[0].Tool != "notes.create" || obs.asks[0].ClientAsked || obs.asks[0].RunID == "" ||
				!strings.Contains(string(obs.asks[0].Args), "[EMAIL_1]") || !strings.Contains(obs.asks[0].Why, "policy rule 1") {
				t.Errorf("asks %+v: want one about notes.create in a run, tokenized, the client not asked", obs.asks)
			}
			if !slices.Contains(obs.asks[0].Tokens, "[EMAIL_1]: EMAIL, typed by the client or its script") {
				t.Errorf("the ask's tokens %q: want the script's email as typed by the client", obs.asks[0].Tokens)
			}
			if len(obs.starts) != 1 || len(obs.ends) != 1 || obs.starts[0].RunID != obs.ends[0].RunID ||
				!strings.Contains(obs.starts[0].Code, "[EMAIL_1]") || obs.starts[0].Language != "lua" {
				t.Errorf("starts %+v ends %+v: want one run, its code tokenized", obs.starts, obs.ends)
			}
			var calls []string
			for _, r := range obs.recs {
				if r.Kind == audit.KindCall {
					calls = append(calls, r.Tool+" "+r.Decision)
				}
			}
			if len(calls) == 0 || calls[0] != "notes.create ask" || (tc.created == 1 && (len(calls) < 2 || calls[1] != "notes.delete_all deny")) {
				t.Errorf("recorded calls %q", calls)
			}
			for _, s := range []string{obs.starts[0].Code, obs.ends[0].Output, string(obs.asks[0].Args)} {
				if strings.Contains(s, "ann.lee@example.com") {
					t.Errorf("the observer got the raw email: %s", s)
				}
			}
		})
	}
}

// TestObserverAskedBesideTheClient: a client that can ask is asked, and
// the page too; the first answer wins.
func TestObserverAskedBesideTheClient(t *testing.T) {
	n := &notebook{}
	obs := &pageObserver{answer: policy.ChoiceAllowOnce}
	p, _ := startProxyWith(t, policyConfig(t, n), &Options{Observer: obs})
	// The person never answers in the client: the run goes on with the
	// page's answer. (The client's question is withdrawn, or never sent
	// when the page answered first.)
	never := make(chan struct{})
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "asking-client"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-never:
				return nil, errors.New("the test ended")
			}
		}}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	t.Cleanup(func() { close(never) }) // first: a handler still waiting ends before the client closes
	text, _ := runLua(t, cs, policyScript)
	if len(n.list()) != 1 || !strings.Contains(text, "notes read") {
		t.Errorf("the page's allow did not hold: %d notes; %s", len(n.list()), text)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.asks) != 1 || !obs.asks[0].ClientAsked {
		t.Errorf("asks %+v: want one, the client asked too", obs.asks)
	}
}
