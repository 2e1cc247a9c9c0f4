package main

import (
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
)

func TestPIIStatus(t *testing.T) {
	cases := []struct {
		pii        config.PII
		want, miss string
	}{
		{config.PII{}, "on: email, phone", "off:"},
		{config.PII{Disabled: true}, "off (pii.enabled: false)", "on:"},
		{config.PII{Detectors: map[string]bool{"ip_address": false}}, "; off: ip_address", ""},
		{config.PII{PhoneRegions: []string{"US", "DE"}, TrustedUpstreams: []string{"crm"}},
			"national phone formats of US, DE; trusted (results untokenized): crm", ""},
		{config.PII{Custom: []config.PIICustom{{Name: "EMPLOYEE_ID", Pattern: `E\d{6}`}}}, "name, address, EMPLOYEE_ID", ""},
	}
	for _, c := range cases {
		got := piiStatus(c.pii)
		if !strings.Contains(got, c.want) || (c.miss != "" && strings.Contains(got, c.miss)) {
			t.Errorf("piiStatus(%+v) = %q; want %q, not %q", c.pii, got, c.want, c.miss)
		}
	}
}
