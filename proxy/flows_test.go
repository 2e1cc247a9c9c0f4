package proxy

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/policy"
)

// flowScript reads a customer from crm and mails its email through
// another server's save tool, whose answer does not hold it (a server
// that returns the value gains it as an origin).
const flowScript = `local l = tools.crm.lookup{}
local email = string.match(l[1].text, "%[EMAIL_%d+%]")
return tools.mail.save{to = "team", body = "contact " .. email}` // the answer does not echo the body

// flowProxy serves crm and mail (two piiServers) with flows, auditing to
// a file it returns.
func flowProxy(t *testing.T, flows []config.PIIFlow) (*Proxy, *piiServer, *piiServer, string) {
	t.Helper()
	crm, mail := newPIIServer(), newPIIServer()
	cfg := testConfig(httpUpstream(t, "crm", crm.srv), httpUpstream(t, "mail", mail.srv))
	cfg.PII = config.PII{Flows: flows}
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	aud, err := audit.Open(config.Audit{File: file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { aud.Close() })
	p, _ := startProxyWith(t, cfg, &Options{Audit: aud})
	return p, crm, mail, file
}

// flowEntries are the audit's flow lines, as "token type origin -> tool
// decision approval".
func flowEntries(t *testing.T, file string) ([]string, string) {
	t.Helper()
	entries, raw := readAudit(t, file)
	var out []string
	for _, e := range entries {
		if e.Kind == audit.KindFlow {
			out = append(out, e.Token+" "+e.TokenType+" "+e.Origin+" -> "+e.Tool+" "+e.Decision+" "+e.Approval+" by "+e.Rule)
		}
	}
	return out, raw
}

// TestFlowsAcrossServers: a token minted from crm's result is refused on
// its way to another server when no person can be asked, naming the rule
// to add; a pii.flows rule lets it go (the upstream gets the value); a
// person's yes does too, and "allow for this session" holds for the next
// run; a crm call gets it back freely. Every decision is audited without
// the value.
func TestFlowsAcrossServers(t *testing.T) {
	t.Run("refused by default", func(t *testing.T) {
		p, crm, mail, file := flowProxy(t, nil)
		cs := policyClient(t, p, nil, "")
		out, isErr := runLua(t, cs, flowScript)
		if !isErr || !strings.Contains(out, `add {from: "crm.*", to: "mail.save", types: [EMAIL], action: allow} to pii.flows in proxy.yaml`) {
			t.Errorf("want the call refused naming the rule to add:\n%s", out)
		}
		if len(mail.saved()) != 0 {
			t.Errorf("mail got %v", mail.saved())
		}
		if out, isErr := runLua(t, cs, strings.ReplaceAll(flowScript, "tools.mail.save", "tools.crm.save")); isErr ||
			len(crm.saved()) != 1 || !strings.Contains(crm.saved()[0], "ann@example.com") {
			t.Errorf("same server: %s; crm got %v", out, crm.saved())
		}
		flows, raw := flowEntries(t, file)
		want := []string{
			"[EMAIL_1] EMAIL crm.lookup -> mail.save ask unavailable by the flow default (another server: ask)",
			"[EMAIL_1] EMAIL crm.lookup -> crm.save allow  by the flow default (same server: allow)",
		}
		if strings.Join(flows, "\n") != strings.Join(want, "\n") {
			t.Errorf("audited flows:\n%s\nwant:\n%s", strings.Join(flows, "\n"), strings.Join(want, "\n"))
		}
		if strings.Contains(raw, "ann@example.com") {
			t.Errorf("the audit holds the value:\n%s", raw)
		}
	})
	t.Run("allowed by a rule", func(t *testing.T) {
		p, _, mail, file := flowProxy(t, []config.PIIFlow{{From: "crm.*", To: "mail.*", Types: []string{"EMAIL"}, Action: "allow"}})
		if out, isErr := runLua(t, policyClient(t, p, nil, ""), flowScript); isErr {
			t.Fatalf("run failed: %s", out)
		}
		if got := mail.saved(); len(got) != 1 || !strings.Contains(got[0], `"body":"contact ann@example.com"`) {
			t.Errorf("mail got %v; want the value", got)
		}
		flows, _ := flowEntries(t, file)
		if len(flows) != 1 || !strings.Contains(flows[0], "mail.save allow  by pii.flows rule 1 (crm.* -> mail.* [EMAIL])") {
			t.Errorf("audited flows %q", flows)
		}
	})
	t.Run("denied by a rule", func(t *testing.T) {
		p, _, mail, _ := flowProxy(t, []config.PIIFlow{{From: "*", To: "mail.*", Action: "deny"}})
		e := &elicitor{answer: policy.ChoiceAllowOnce}
		out, isErr := runLua(t, policyClient(t, p, e, ""), flowScript)
		if !isErr || !strings.Contains(out, "pii.flows rule 1 (* -> mail.*) keeps it from mail.save") || len(e.messages()) != 0 || len(mail.saved()) != 0 {
			t.Errorf("deny: asked %d, mail got %v:\n%s", len(e.messages()), mail.saved(), out)
		}
	})
	t.Run("a person allows for the session", func(t *testing.T) {
		p, _, mail, file := flowProxy(t, nil)
		e := &elicitor{answer: policy.ChoiceAllowSession}
		cs := policyClient(t, p, e, "")
		for range 2 {
			if out, isErr := runLua(t, cs, flowScript); isErr {
				t.Fatalf("run failed: %s", out)
			}
		}
		asked := e.messages()
		if len(asked) != 1 || len(mail.saved()) != 2 {
			t.Fatalf("asked %d times, mail got %d; want one question, two mails", len(asked), len(mail.saved()))
		}
		for _, w := range []string{"[EMAIL_1]: an address at example.com, from crm.lookup", "[EMAIL_1] from crm.lookup to mail.save"} {
			if !strings.Contains(asked[0], w) {
				t.Errorf("question lacks %q:\n%s", w, asked[0])
			}
		}
		if strings.Contains(asked[0], "ann@example.com") {
			t.Errorf("the question shows the whole value:\n%s", asked[0])
		}
		flows, _ := flowEntries(t, file)
		if len(flows) != 2 || !strings.Contains(flows[0], "ask allow_session") || !strings.Contains(flows[1], "ask session") {
			t.Errorf("audited flows %q", flows)
		}
	})
}

// TestApprovalShowsWholeCall: the approval of a mail to eleven recipients,
// the eleventh from crm's result, with an IBAN at the end of a long body
// and a token no result of the session minted, shows every recipient,
// each token with its type, origin and a glimpse of its value (a token of
// the session as itself, not as [TOKEN_n]), the IBAN's marker, and flags
// the foreign token; the audit line holds the whole arguments.
func TestApprovalShowsWholeCall(t *testing.T) {
	p, _, mail, file := flowProxy(t, []config.PIIFlow{{From: "crm.*", To: "mail.*", Action: "allow"}})
	p.guard.pol = policy.New(config.Policy{Rules: []config.PolicyRule{{Match: "mail.save", Action: "ask"}}}, nil)
	e := &elicitor{answer: policy.ChoiceAllowOnce}
	out, isErr := runLua(t, policyClient(t, p, e, ""), `
local email = string.match(tools.crm.lookup{}[1].text, "%[EMAIL_%d+%]")
local to = {}
for i = 1, 10 do to[#to + 1] = "staff" .. i .. "@example.org" end
to[#to + 1] = email
return tools.mail.save{to = table.concat(to, ", "),
  body = string.rep("Quarterly figures attached. ", 30) .. "Pay to DE89 3704 0044 0532 0130 00. cc [EMAIL_99]"}`)
	if isErr {
		t.Fatalf("run failed: %s", out)
	}
	asked := e.messages()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	msg := asked[0]
	for _, w := range []string{
		"[EMAIL_1]: an address at example.com, from crm.lookup",
		"[EMAIL_11]: an address at example.org, typed by the client or its script",
		"[IBAN_1]: an IBAN of DE ending 3000, typed by the client or its script",
		"[EMAIL_99]: NOT from this session's results",
		"Pay to [IBAN_1]. cc [EMAIL_99]",
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("approval lacks %q:\n%s", w, msg)
		}
	}
	for i := 1; i <= 11; i++ {
		if !strings.Contains(msg, fmt.Sprintf("[EMAIL_%d]", i)) {
			t.Errorf("recipient [EMAIL_%d] not shown:\n%s", i, msg)
		}
	}
	if strings.Contains(msg, "[TOKEN_") || strings.Contains(msg, "ann@") || strings.Contains(msg, "staff1@") || strings.Contains(msg, "0532") {
		t.Errorf("approval shows a re-vaulted token or a whole value:\n%s", msg)
	}
	if len(mail.saved()) != 1 {
		t.Errorf("mail got %d calls", len(mail.saved()))
	}
	entries, _ := readAudit(t, file)
	for _, en := range entries {
		if en.Kind == audit.KindCall && en.Tool == "mail.save" {
			if !strings.Contains(en.Args, "[EMAIL_1]") || !strings.Contains(en.Args, "Pay to [IBAN_1]. cc [EMAIL_99]") || strings.Contains(en.Args, "…") {
				t.Errorf("audited args are not whole: %s", en.Args)
			}
			return
		}
	}
	t.Errorf("no audit line for mail.save")
}

// TestFlowsInAnswers: a client's answer to an upstream's elicitation or
// sampling request gets its tokens restored only where pii.flows lets
// every one of them go to that upstream, by the rules alone.
func TestFlowsInAnswers(t *testing.T) {
	st := newPIIState(config.PII{Flows: []config.PIIFlow{{From: "crm.*", To: "notes.*", Action: "allow"}}}, nil)
	s := &Session{vault: st.newVault()}
	s.vault.From("crm.get").Tokenize("ann@example.com") // [EMAIL_1]
	for _, tc := range []struct{ up, want string }{
		{"crm", "ann@example.com"},   // its own server
		{"notes", "ann@example.com"}, // a rule allows it
		{"mail", "[EMAIL_1]"},        // another server: asks, and no one can be asked about an answer
	} {
		res := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"to": "[EMAIL_1]"}}
		st.ElicitBack(s, tc.up, res)
		sres := &mcp.CreateMessageWithToolsResult{Content: []mcp.Content{&mcp.TextContent{Text: "to [EMAIL_1]"}}}
		st.SamplingBack(s, tc.up, sres)
		if got := res.Content["to"]; got != tc.want {
			t.Errorf("elicitation answer to %s: %q, want %q", tc.up, got, tc.want)
		}
		if got := sres.Content[0].(*mcp.TextContent).Text; got != "to "+tc.want {
			t.Errorf("sampling answer to %s: %q, want %q", tc.up, got, "to "+tc.want)
		}
	}
}
