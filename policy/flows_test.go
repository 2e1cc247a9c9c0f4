package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

func TestMatchName(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "a.b", true},
		{"crm.*", "crm.get_contact", true},
		{"crm.*", "crm.admin/wipe", true},
		{"crm.*", "crmx.get", false},
		{"*.send_*", "mail.send_message", true},
		{"*.send_*", "mail.resend", false},
		{"a.?", "a.b", true},
		{"a.?", "a.bc", false},
		{"a.*z", "a." + long + "z", true},
		{"ü.*", "ü.naïve tool", true},
		{"client", "client", true},
		{"a.[b]", "a.b", true},
		{"a.b", "a.bb", false},
	} {
		if got := matchFlowGlob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("matchFlowGlob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestFlowsDecide(t *testing.T) {
	f := NewFlows([]config.PIIFlow{
		{From: "crm.*", To: "mail.send_*", Types: []string{"EMAIL"}, Action: "allow", Line: 7},
		{From: "*", To: "hooks.*", Action: "deny"},
		{From: "client", To: "hooks.*", Action: "deny"},
	})
	for _, tc := range []struct {
		name   string
		fl     Flow
		action Action
		rule   string
	}{
		{"same server", Flow{Type: "EMAIL", Origins: []string{"crm.get"}, To: "crm.update"}, Allow, "the flow default (same server: allow)"},
		{"other server asks", Flow{Type: "PHONE", Origins: []string{"crm.get"}, To: "mail.send_message"}, Ask, "the flow default (another server: ask)"},
		{"rule by type", Flow{Type: "EMAIL", Origins: []string{"crm.get"}, To: "mail.send_message"}, Allow, "pii.flows rule 1 (crm.* -> mail.send_* [EMAIL]) at line 7"},
		{"deny wins over default", Flow{Type: "EMAIL", Origins: []string{"hooks.get"}, To: "hooks.post"}, Deny, "pii.flows rule 2 (* -> hooks.*)"},
		{"client typed", Flow{Type: "EMAIL", Origins: []string{"client"}, To: "mail.send"}, Allow, "the flow default (a value the client typed: allow)"},
		{"client rule", Flow{Type: "EMAIL", Origins: []string{"client"}, To: "hooks.post"}, Deny, "pii.flows rule 2 (* -> hooks.*)"},
		{"unknown origin", Flow{Type: "EMAIL", To: "mail.send"}, Ask, "the flow default (origin unknown: ask)"},
		{"empty origin", Flow{Type: "EMAIL", Origins: []string{""}, To: "mail.send"}, Ask, "the flow default (origin unknown: ask)"},
		{"literal", Flow{Type: "TOKEN", Origins: []string{"crm.get"}, To: "hooks.post"}, Allow, "the flow default (text that only looked like a token: allow)"},
		{"second origin is the destination's server", Flow{Type: "PHONE", Origins: []string{"crm.get", "mail.read"}, To: "mail.send"}, Allow, "the flow default (same server: allow)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := f.Decide(tc.fl)
			if d.Action != tc.action || d.Rule.String() != tc.rule {
				t.Errorf("Decide = %s by %q, want %s by %q", d.Action, d.Rule, tc.action, tc.rule)
			}
		})
	}
	var none *Flows
	if d := none.Decide(Flow{Type: "EMAIL", Origins: []string{"a.x"}, To: "b.y"}); d.Action != Ask {
		t.Errorf("nil Flows: %s, want the default ask", d.Action)
	}
}

// TestAuthorizeFlows: a flow to another server is refused where no one
// can be asked, naming the rule to add; a person's "allow for this
// session" lets that flow (same origin server, tool, type) through later
// without asking, and no other; a deny is never asked about.
func TestAuthorizeFlows(t *testing.T) {
	p := New(config.Policy{}, nil)
	f := NewFlows([]config.PIIFlow{{From: "*", To: "hooks.*", Action: "deny"}})
	call := func(to string, fls ...Flow) FlowCall {
		for i := range fls {
			fls[i].To = to
		}
		return FlowCall{Call: Call{Tool: Tool{Name: to}, Args: []byte(`{"to":"[EMAIL_1]"}`)}, Flows: fls}
	}
	email := Flow{Token: "[EMAIL_1]", Type: "EMAIL", Origins: []string{"crm.get_contact"}}
	ctx := context.Background()

	vs, err := p.AuthorizeFlows(ctx, f, call("mail.send", email), &Approvals{}, nil)
	var r *FlowRefusal
	if !errors.As(err, &r) || vs[0].Approval != OutcomeUnavailable ||
		!strings.Contains(err.Error(), `add {from: "crm.*", to: "mail.send", types: [EMAIL], action: allow} to pii.flows in proxy.yaml`) ||
		!strings.Contains(err.Error(), "[EMAIL_1] stands for a value from crm.get_contact") {
		t.Errorf("no asker: verdict %+v, err %v", vs, err)
	}

	var asked []string
	answer := "allow_session"
	ask := func(_ context.Context, ep *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked = append(asked, ep.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{ChoiceField: answer}}, nil
	}
	a := &Approvals{}
	if _, err := p.AuthorizeFlows(ctx, f, call("mail.send", email), a, ask); err != nil || len(asked) != 1 {
		t.Fatalf("asked %d times, err %v; want one question, allowed", len(asked), err)
	}
	if !strings.Contains(asked[0], "[EMAIL_1] from crm.get_contact to mail.send (the flow default (another server: ask) asks)") {
		t.Errorf("question:\n%s", asked[0])
	}
	vs, err = p.AuthorizeFlows(ctx, f, call("mail.send", email), a, ask)
	if err != nil || len(asked) != 1 || vs[0].Approval != OutcomeSession {
		t.Errorf("second call: asked %d, verdict %+v, err %v; want allowed by the session's answer", len(asked), vs, err)
	}
	phone := Flow{Token: "[PHONE_1]", Type: "PHONE", Origins: []string{"crm.get_contact"}}
	answer = "deny"
	if _, err := p.AuthorizeFlows(ctx, f, call("mail.send", phone), a, ask); len(asked) != 2 || err == nil ||
		!strings.Contains(err.Error(), "the person did not let it go to mail.send") {
		t.Errorf("another type: asked %d, err %v; want asked again and refused", len(asked), err)
	}
	if _, err := p.AuthorizeFlows(ctx, f, call("hooks.post", email), a, ask); len(asked) != 2 || err == nil ||
		!strings.Contains(err.Error(), "pii.flows rule 1 (* -> hooks.*) keeps it from hooks.post") {
		t.Errorf("deny: asked %d, err %v; want refused unasked", len(asked), err)
	}
	if vs, err := p.AuthorizeFlows(ctx, f, call("crm.update", email), a, ask); err != nil || vs[0].Action != Allow {
		t.Errorf("same server: %+v, %v", vs, err)
	}
}
