package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPII(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      PII
	}{{
		name: "no section: on with defaults",
		src:  "",
		want: PII{},
	}, {
		name: "everything",
		src: `pii:
  enabled: true
  detectors: {email: true, ip_address: false}
  phone_regions: [us, DE]
  allow: [support@example.com]
  custom:
    - {name: employee_id, pattern: 'EMP-\d{6}'}
  trusted_upstreams: [a]
  vault: {max_entries: 500, max_bytes: 1MiB, ttl: 30m}
`,
		want: PII{Detectors: map[string]bool{"email": true, "ip_address": false}, PhoneRegions: []string{"US", "DE"}, PhoneRegionsSet: true,
			Allow: []string{"support@example.com"}, Custom: []PIICustom{{Name: "employee_id", Pattern: `EMP-\d{6}`}},
			TrustedUpstreams: []string{"a"}, VaultMaxEntries: 500, VaultMaxBytes: 1 << 20, VaultTTL: 30 * time.Minute},
	}, {
		name: "names and addresses off",
		src:  "pii: {detectors: {name: false, address: false}}\n",
		want: PII{Detectors: map[string]bool{"name": false, "address": false}},
	}, {
		name: "off",
		src:  "pii: {enabled: false}\n",
		want: PII{Disabled: true},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustParse(t, "p.yaml", "upstreams: {a: {command: x}}\n"+tc.src, nil)
			if diff := cmp.Diff(tc.want, cfg.PII); diff != "" {
				t.Errorf("PII (-want +got):\n%s", diff)
			}
		})
	}
	p := PII{Detectors: map[string]bool{"email": false}}
	if p.DetectorOn("email") || !p.DetectorOn("phone") {
		t.Error("DetectorOn: absent means on, false means off")
	}
}

func TestPIIErrors(t *testing.T) {
	src := `upstreams: {a: {command: x}}
pii:
  enabled: maybe
  detectors: {emails: true, phone: 1}
  phone_regions: [XX]
  custom:
    - {name: 9lives, pattern: x}
    - {name: emp, pattern: "("}
    - {name: any, pattern: ".*"}
    - {name: email, pattern: x}
    - {pattern: x}
  trusted_upstreams: [b]
  vault: {ttl: soon, size: 1}
  alow: []
`
	want := []string{
		`test.yaml:2:1: pii.trusted_upstreams: "b" is not an upstream; list names from upstreams: (a)`,
		`test.yaml:3:12: pii.enabled: must be true or false`,
		`test.yaml:4:15: pii.detectors.emails: unknown key "emails"; did you mean "email"?`,
		`test.yaml:4:36: pii.detectors.phone: must be true or false`,
		`test.yaml:5:19: pii.phone_regions: no national phone format for "XX"; use an ISO 3166 region code, such as US, GB or DE (international +CC numbers are found whatever the regions)`,
		`test.yaml:7:14: pii.custom[0].name: "9lives": use letters, digits and '_', starting with a letter (it becomes the token type, e.g. [EMPLOYEE_ID_1]), and not a built-in type`,
		"test.yaml:8:28: pii.custom[1].pattern: not a Go regular expression: error parsing regexp: missing closing ): `(`",
		`test.yaml:9:28: pii.custom[2].pattern: ".*" matches empty text; make it match at least one character`,
		`test.yaml:10:14: pii.custom[3].name: "email": use letters, digits and '_', starting with a letter (it becomes the token type, e.g. [EMPLOYEE_ID_1]), and not a built-in type`,
		`test.yaml:11:7: pii.custom[4]: needs both name and pattern`,
		`test.yaml:13:16: pii.vault.ttl: invalid duration "soon"; use Go syntax like 30s or 2m`,
		`test.yaml:13:22: pii.vault.size: unknown key "size"; known keys: max_entries, max_bytes, ttl`,
		`test.yaml:14:3: pii.alow: unknown key "alow"; did you mean "allow"?`,
	}
	_, err := Parse("test.yaml", []byte(src), nil)
	if err == nil {
		t.Fatal("Parse succeeded; want errors")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
