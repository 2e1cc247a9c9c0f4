package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

func TestParams(t *testing.T) {
	req := ApprovalRequest{
		Tool:  "memory.create_entities",
		RunID: "r-7",
		Args:  json.RawMessage(`{"entities":[{"name":"Ada","observations":["mail [EMAIL_1]","` + strings.Repeat("x", 200) + `"]}]}`),
		Rule:  Rule{Index: 1, Text: "memory.create_*"},
	}
	p := mustParams(t, req)
	if p.Mode != "form" {
		t.Errorf("Mode = %q, want form", p.Mode)
	}
	for _, want := range []string{"A script (run r-7) wants to call memory.create_entities.",
		`"mail [EMAIL_1]",`, `"` + strings.Repeat("x", 200) + `"`,
		"toolfold asks because of policy rule 1 (memory.create_*).", "Allow it?"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("Message lacks %q:\n%s", want, p.Message)
		}
	}
	schema, _ := json.Marshal(p.RequestedSchema)
	want := `{"properties":{"decision":{"description":"Allow this call once, allow memory.create_entities for the rest of this session, or deny it.",` +
		`"enum":["allow_once","allow_session","deny"],"enumNames":["Allow once","Allow for this session","Deny"],"title":"Decision","type":"string"}},` +
		`"required":["decision"],"type":"object"}`
	if string(schema) != want {
		t.Errorf("schema\n got %s\nwant %s", schema, want)
	}
	changed := mustParams(t, ApprovalRequest{Tool: "a.b", Changed: true}).Message
	if !strings.HasPrefix(changed, "A tool call wants to call a.b.\n") || !strings.Contains(changed, "`toolfold tools approve a.b`") {
		t.Errorf("changed tool's message:\n%s", changed)
	}
}

func mustParams(t *testing.T, r ApprovalRequest) *mcp.ElicitParams {
	t.Helper()
	p, err := r.Params()
	if err != nil {
		t.Fatalf("Params: %v", err)
	}
	return p
}

// TestParamsWholeCall: a mail to eleven recipients, the eleventh an
// attacker's, with an IBAN at the end of a long body, shows every
// recipient with its domain and where it came from, the IBAN's country
// and last four, and flags a token no result of the session minted.
func TestParamsWholeCall(t *testing.T) {
	var to []string
	var notes []TokenNote
	for i := 1; i <= 11; i++ {
		tok := fmt.Sprintf("[EMAIL_%d]", i)
		to = append(to, tok)
		domain := "example.org"
		if i == 11 {
			domain = "attacker.example"
		}
		notes = append(notes, TokenNote{Token: tok, Type: "EMAIL", Origin: "crm.list_contacts", Glimpse: "an address at " + domain,
			Value: fmt.Sprintf("p%d@%s", i, domain)})
	}
	notes = append(notes, TokenNote{Token: "[IBAN_1]", Type: "IBAN", Origin: "files.read_text_file", Glimpse: "an IBAN of DE ending 3000",
		Value: "DE89370400440532013000"})
	body := strings.Repeat("Quarterly numbers attached. ", 40) + "Please pay to [IBAN_1]. Also cc [EMAIL_99]."
	args, _ := json.Marshal(map[string]any{"to": to, "subject": "Q3", "body": body})
	req := ApprovalRequest{Tool: "mail.send_message", Args: args, Rule: Rule{Index: 1, Text: "mail.*"}, Tokens: notes}
	msg := mustParams(t, req).Message
	for i := 1; i <= 11; i++ {
		if !strings.Contains(msg, fmt.Sprintf("\"[EMAIL_%d]\"", i)) {
			t.Errorf("recipient %d not shown:\n%s", i, msg)
		}
	}
	for _, want := range []string{
		"[EMAIL_11]: an address at attacker.example, from crm.list_contacts",
		"[EMAIL_1]: an address at example.org, from crm.list_contacts",
		"[IBAN_1]: an IBAN of DE ending 3000, from files.read_text_file",
		"[EMAIL_99]: NOT from this session's results",
		"Please pay to [IBAN_1]. Also cc [EMAIL_99].",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "p11@attacker.example") || strings.Contains(msg, "DE89370400440532013000") {
		t.Errorf("whole values shown without approval_reveal:\n%s", msg)
	}
	req.Reveal = true
	if msg := mustParams(t, req).Message; !strings.Contains(msg, `[EMAIL_11]: email "p11@attacker.example", from crm.list_contacts`) ||
		!strings.Contains(msg, `"DE89370400440532013000"`) {
		t.Errorf("approval_reveal: whole values not shown:\n%s", msg)
	}
}

// TestParamsTooLarge: a call too large to show whole is refused, not cut.
func TestParamsTooLarge(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"body": strings.Repeat("x", MaxShownArgs)})
	if _, err := (ApprovalRequest{Tool: "a.b", Args: args}).Params(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Params of %d bytes: err %v, want ErrTooLarge", len(args), err)
	}
	p := New(config.Policy{Default: "ask"}, nil)
	asked := false
	ask := func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) { asked = true; return nil, nil }
	v, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "a.b"}, Args: args}, &Approvals{}, ask)
	if asked || err == nil || v.Approval != OutcomeTooLarge || !strings.Contains(err.Error(), "too large to show a person whole") {
		t.Errorf("Authorize: asked %v, outcome %q, err %v; want refused unasked", asked, v.Approval, err)
	}
}

func TestParseApproval(t *testing.T) {
	tests := []struct {
		res     *mcp.ElicitResult
		want    Outcome
		wantErr bool
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_once"}}, OutcomeAllowOnce, false},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_session"}}, OutcomeAllowSession, false},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, OutcomeDenied, false},
		{&mcp.ElicitResult{Action: "accept"}, OutcomeDenied, true},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "sure"}}, OutcomeDenied, true},
		{&mcp.ElicitResult{Action: "decline"}, OutcomeDeclined, false},
		{&mcp.ElicitResult{Action: "cancel"}, OutcomeCancelled, false},
		{&mcp.ElicitResult{Action: "shrug"}, OutcomeCancelled, true},
		{nil, OutcomeCancelled, true},
	}
	for _, tt := range tests {
		got, err := ParseApproval(tt.res)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseApproval(%+v) = %q, %v; want %q, error %v", tt.res, got, err, tt.want, tt.wantErr)
		}
		if got.Allowed() != (tt.want == OutcomeAllowOnce || tt.want == OutcomeAllowSession) {
			t.Errorf("%q.Allowed() = %v", got, got.Allowed())
		}
	}
}

// answer returns an Asker that answers with res and counts its calls.
func answer(res *mcp.ElicitResult, err error, n *atomic.Int32) Asker {
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		n.Add(1)
		return res, err
	}
}

func TestAuthorize(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	create := Call{Tool: Tool{Name: "memory.create_entities"}, Session: "s1", RunID: "r1", Args: json.RawMessage(`{}`)}
	accept := func(choice string) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": choice}}
	}
	tests := []struct {
		name       string
		call       Call
		res        *mcp.ElicitResult
		askErr     error
		noAsker    bool
		wantOut    Outcome
		wantReason Reason // "" for allowed
		asks       int32
	}{
		{"allow once", create, accept("allow_once"), nil, false, OutcomeAllowOnce, "", 1},
		{"deny choice", create, accept("deny"), nil, false, OutcomeDenied, ReasonDeclined, 1},
		{"declined", create, &mcp.ElicitResult{Action: "decline"}, nil, false, OutcomeDeclined, ReasonDeclined, 1},
		{"cancelled", create, &mcp.ElicitResult{Action: "cancel"}, nil, false, OutcomeCancelled, ReasonCancelled, 1},
		{"no elicitation", create, nil, nil, true, OutcomeUnavailable, ReasonNoElicitation, 0},
		{"client error", create, nil, errors.New("client does not support elicitation"), false, OutcomeUnavailable, ReasonNoElicitation, 1},
		{"denied without asking", Call{Tool: Tool{Name: "memory.delete_entities"}}, nil, nil, false, "", ReasonDenied, 0},
		{"allowed without asking", Call{Tool: Tool{Name: "memory.read_graph"}}, nil, nil, false, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			ask := answer(tt.res, tt.askErr, &n)
			if tt.noAsker {
				ask = nil
			}
			v, err := p.Authorize(context.Background(), tt.call, &Approvals{}, ask)
			var r *Refusal
			switch {
			case tt.wantReason == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantReason != "" && (!errors.As(err, &r) || r.Reason != tt.wantReason):
				t.Fatalf("err = %v, want a %s refusal", err, tt.wantReason)
			}
			if v.Approval != tt.wantOut || n.Load() != tt.asks {
				t.Errorf("approval %q after %d asks, want %q after %d", v.Approval, n.Load(), tt.wantOut, tt.asks)
			}
		})
	}
}

func TestAllowForSession(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	var n atomic.Int32
	ask := answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_session"}}, nil, &n)
	var mine, other Approvals
	call := Call{Tool: Tool{Name: "memory.create_entities"}}
	var got []Outcome
	for _, a := range []*Approvals{&mine, &mine, &other} {
		v, err := p.Authorize(context.Background(), call, a, ask)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v.Approval)
	}
	want := []Outcome{OutcomeAllowSession, OutcomeSession, OutcomeAllowSession}
	if diff := cmp.Diff(want, got); diff != "" || n.Load() != 2 {
		t.Errorf("outcomes (-want +got):\n%s\nasked %d times, want 2 (once per session)", diff, n.Load())
	}
	if diff := cmp.Diff([]string{"memory.create_entities"}, mine.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestApprovalTimeout(t *testing.T) {
	p := New(config.Policy{Default: "ask", ApprovalTimeout: 20 * time.Millisecond}, nil)
	wait := func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	v, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "a.b"}}, nil, wait)
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ReasonTimeout || v.Approval != OutcomeTimeout || !strings.Contains(err.Error(), "within 20ms") {
		t.Errorf("err = %v, approval %q: want a timeout", err, v.Approval)
	}
	// The caller's own cancellation is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err = p.Authorize(ctx, Call{Tool: Tool{Name: "a.b"}}, nil, wait)
	if !errors.Is(err, context.Canceled) || v.Approval != OutcomeCancelled {
		t.Errorf("cancelled caller: err = %v, approval %q", err, v.Approval)
	}
}

// TestElicitThroughSDK asks through a real go-sdk client and server
// connected in memory, on a protocol version where the server may send
// elicitation/create itself (before 2026-07-28): the SDK accepts the
// form's schema, the client's handler sees it, and its answer comes back
// as an outcome. A client without an ElicitationHandler fails closed.
func TestElicitThroughSDK(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	call := Call{Tool: Tool{Name: "memory.create_entities"}, RunID: "r9", Args: json.RawMessage(`{"entities":[]}`)}
	var seen *mcp.ElicitParams
	handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		seen = req.Params
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_once"}}, nil
	}
	ss, _ := connect(t, &mcp.ClientOptions{ElicitationHandler: handler}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}, nil)
	v, err := p.Authorize(context.Background(), call, nil, ss.Elicit)
	if err != nil || v.Approval != OutcomeAllowOnce {
		t.Fatalf("Authorize through the SDK: %+v, %v", v, err)
	}
	if seen == nil || !strings.Contains(seen.Message, "memory.create_entities") || !strings.Contains(seen.Message, "run r9") {
		t.Errorf("the client saw %+v", seen)
	}

	ss, _ = connect(t, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}, nil)
	_, err = p.Authorize(context.Background(), call, nil, ss.Elicit)
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ReasonNoElicitation || !strings.Contains(err.Error(), "{match: memory.create_entities, action: allow}") {
		t.Errorf("client without elicitation: %v", err)
	}
}

// TestApprovalAsInputRequest asks the way protocol 2026-07-28 requires
// (multi round-trip requests): the tool's handler returns the form as an
// input request, the client's SDK answers it with its ElicitationHandler
// and retries the call, and the handler reads the answer with
// ParseApproval.
func TestApprovalAsInputRequest(t *testing.T) {
	req := ApprovalRequest{Tool: "memory.create_entities", RunID: "r1", Rule: Rule{Index: 1, Text: "memory.create_*"}}
	tool := func(_ context.Context, ctr *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := ctr.Params.InputResponses["approval"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"approval": mustParams(t, req)}}, nil
		}
		out, err := ParseApproval(res)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
	}
	handler := func(_ context.Context, er *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if !strings.Contains(er.Params.Message, "memory.create_entities") {
			t.Errorf("message: %s", er.Params.Message)
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_session"}}, nil
	}
	_, cs := connect(t, &mcp.ClientOptions{ElicitationHandler: handler}, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "run_script", InputSchema: json.RawMessage(`{"type":"object"}`)}, tool)
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != string(OutcomeAllowSession) {
		t.Errorf("result %+v, want %q", res.Content, OutcomeAllowSession)
	}
}

// connect starts a server session talking to a client with opts and
// sopts in memory; setup, if set, adds to the server first.
func connect(t *testing.T, opts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions, setup func(*mcp.Server)) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := mcp.NewServer(&mcp.Implementation{Name: "toolfold-test", Version: "v0"}, nil)
	if setup != nil {
		setup(srv)
	}
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, opts).Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return ss, cs
}

// TestAuthorizeConcurrent runs one session's calls at once, as a script's
// Promise.all does: the person is asked once, and the other calls pass on
// that "allow for this session".
func TestAuthorizeConcurrent(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	var n atomic.Int32
	ask := answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_session"}}, nil, &n)
	var approvals Approvals
	done := make(chan error)
	for range 16 {
		go func() {
			_, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "memory.create_entities"}, Session: "s"}, &approvals, ask)
			done <- err
		}()
	}
	for range 16 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if got := n.Load(); got != 1 {
		t.Errorf("asked %d times, want once", got)
	}
	if !approvals.Granted("memory.create_entities") {
		t.Error("allow_session was not kept")
	}
}

func TestAuthorizeWaitsForTheQuestionInFlight(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	var approvals Approvals
	release, err := approvals.turn(context.Background(), "memory.create_entities")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var n atomic.Int32
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	v, err := p.Authorize(ctx, Call{Tool: Tool{Name: "memory.create_entities"}}, &approvals, answer(nil, nil, &n))
	if !errors.Is(err, context.DeadlineExceeded) || v.Approval != OutcomeCancelled || n.Load() != 0 {
		t.Errorf("while another call asks: %q, %v, %d asks", v.Approval, err, n.Load())
	}
}

// TestQuestionsOverMultiRoundTrip runs a "script" that makes two asked
// calls, one after the other, behind a tools/call handler that carries its
// questions to a protocol 2026-07-28 client as input requests: the
// client's SDK answers each with its ElicitationHandler and retries, and
// the run goes on where it waited.
func TestQuestionsOverMultiRoundTrip(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	type run struct {
		q    Questions
		done chan string
	}
	var mu sync.Mutex
	runs := map[string]*run{}
	script := func(r *run) {
		var outs []string
		for range 2 {
			v, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "memory.create_entities"}, RunID: "r1"}, nil, r.q.Ask)
			outs = append(outs, fmt.Sprintf("%s:%v", v.Approval, err == nil))
		}
		r.done <- strings.Join(outs, ",")
	}
	handler := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		r := runs[req.Params.RequestState]
		if r == nil {
			r = &run{done: make(chan string, 1)}
			runs["r1"] = r
			go script(r)
		}
		mu.Unlock()
		r.q.Answer(req.Params.InputResponses)
		for {
			select {
			case out := <-r.done:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
			case <-r.q.Asked():
				if m := r.q.Requests(); m != nil {
					return &mcp.CallToolResult{InputRequests: m, RequestState: "r1"}, nil
				}
			}
		}
	}
	var answers atomic.Int32
	person := func(_ context.Context, er *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		choice := []string{ChoiceAllowOnce, ChoiceDeny}[answers.Add(1)-1]
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{ChoiceField: choice}}, nil
	}
	_, cs := connect(t, &mcp.ClientOptions{ElicitationHandler: person}, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "run_script", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "allow_once:true,deny:false" {
		t.Errorf("the run saw %q, want allow_once:true,deny:false", got)
	}
}

func TestQuestionsWithdrawn(t *testing.T) {
	var q Questions
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := q.Ask(ctx, &mcp.ElicitParams{Message: "x"})
		errc <- err
	}()
	<-q.Asked()
	if m := q.Requests(); len(m) != 1 || m["approval-1"] == nil {
		t.Fatalf("Requests = %v", m)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Ask = %v", err)
	}
	if m := q.Requests(); m != nil {
		t.Errorf("a withdrawn question is still open: %v", m)
	}
	if n := q.Answer(mcp.InputResponseMap{"approval-1": &mcp.ElicitResult{Action: "accept"}}); n != 0 {
		t.Errorf("Answer answered %d withdrawn questions", n)
	}
}
