package main

import (
	"fmt"
	"strings"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/rewrite"
)

// piiStatus is check's one-line account of PII tokenizing:
// "on (email, phone, …; phone regions: US; 1 trusted upstream)" or "off".
func piiStatus(p config.PII) string {
	if p.Disabled {
		return "off (pii.enabled: false): results reach the model with personal data in clear"
	}
	var on, off []string
	for _, n := range rewrite.DetectorNames() {
		if p.DetectorOn(n) {
			on = append(on, n)
		} else {
			off = append(off, n)
		}
	}
	for _, c := range p.Custom {
		on = append(on, c.Name)
	}
	s := "on: " + strings.Join(on, ", ")
	if len(off) > 0 {
		s += "; off: " + strings.Join(off, ", ")
	}
	if len(p.PhoneRegions) > 0 {
		s += "; national phone formats of " + strings.Join(p.PhoneRegions, ", ")
	} else {
		s += "; international phone formats only"
	}
	if p.PhoneRegionsFrom != "" {
		s += " (" + p.PhoneRegionsFrom + ")"
	}
	if n := len(p.TrustedUpstreams); n > 0 {
		s += fmt.Sprintf("; trusted (results untokenized): %s", strings.Join(p.TrustedUpstreams, ", "))
	}
	return s
}
