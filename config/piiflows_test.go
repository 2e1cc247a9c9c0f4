package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPIIFlows(t *testing.T) {
	src := `upstreams: {crm: {command: x}, mail: {command: x}}
pii:
  custom: [{name: employee_id, pattern: 'EMP-\d{6}'}]
  flows:
    - {from: "crm.*", to: "mail.send_*", types: [email, employee_id], action: allow}
    - {from: client, to: "*", action: ask}
    - from: "*"
      to: "mail.*"
      action: deny
`
	cfg := mustParse(t, "p.yaml", src, nil)
	want := []PIIFlow{
		{From: "crm.*", To: "mail.send_*", Types: []string{"EMAIL", "EMPLOYEE_ID"}, Action: "allow", Line: 5},
		{From: "client", To: "*", Action: "ask", Line: 6},
		{From: "*", To: "mail.*", Action: "deny", Line: 7},
	}
	if diff := cmp.Diff(want, cfg.PII.Flows); diff != "" {
		t.Errorf("flows (-want +got):\n%s", diff)
	}
}

func TestPIIFlowErrors(t *testing.T) {
	src := `upstreams: {crm: {command: x}}
pii:
  flows:
    - {from: "crm.*", to: "mial.send", action: allow}
    - {from: "crm.*", to: "*", types: [EMIAL], action: alow}
    - {from: crm, to: "*", action: deny}
    - {from: "crm.*", action: deny}
    - {from: "crm.*", to: "*", action: deny, when: now}
    - {from: "crm.*", to: "*", types: [PHONE, CARD], action: ask}
`
	want := []string{
		`test.yaml:4:27: pii.flows[0].to: "mial.send" names no upstream "mial", so the rule never matches; servers: skills, crm`,
		`test.yaml:5:40: pii.flows[1].types[0]: no detector gives tokens of type "EMIAL"; types are EMAIL, PHONE, CREDIT_CARD, IBAN, US_SSN, IP_ADDRESS, SECRET, NAME, ADDRESS, TOKEN`,
		`test.yaml:5:56: pii.flows[1].action: must be allow, ask or deny, not "alow"; did you mean "allow"?`,
		`test.yaml:6:14: pii.flows[2].from: "crm" matches no tool: names are qualified server.tool; write crm.*, or *.crm`,
		`test.yaml:7:7: pii.flows[3]: a flow rule needs from, to and action, like {from: "crm.*", to: "mail.send_*", action: allow}`,
		`test.yaml:8:46: pii.flows[4].when: unknown key "when"; known keys: from, to, types, action`,
		`test.yaml:9:47: pii.flows[5].types[1]: no detector gives tokens of type "CARD"; types are EMAIL, PHONE, CREDIT_CARD, IBAN, US_SSN, IP_ADDRESS, SECRET, NAME, ADDRESS, TOKEN`,
	}
	_, err := Parse("test.yaml", []byte(src), nil)
	if err == nil {
		t.Fatal("Parse succeeded; want errors")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
