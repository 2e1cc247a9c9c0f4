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
		{config.PII{PhoneRegions: []string{"US"}, PhoneRegionsFrom: "the locale LANG=en_US.UTF-8; set pii.phone_regions to choose, [] for international formats only"},
			"national phone formats of US (the locale LANG=en_US.UTF-8; set pii.phone_regions", ""},
		{config.PII{PhoneRegionsSet: true, PhoneRegionsFrom: "pii.phone_regions is empty"},
			"international phone formats only (pii.phone_regions is empty)", ""},
		{config.PII{Custom: []config.PIICustom{{Name: "EMPLOYEE_ID", Pattern: `E\d{6}`}}}, "name, address, EMPLOYEE_ID", ""},
	}
	for _, c := range cases {
		got := piiStatus(c.pii)
		if !strings.Contains(got, c.want) || (c.miss != "" && strings.Contains(got, c.miss)) {
			t.Errorf("piiStatus(%+v) = %q; want %q, not %q", c.pii, got, c.want, c.miss)
		}
	}
}
