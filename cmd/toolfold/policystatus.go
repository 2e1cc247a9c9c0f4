package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/store"
)

// policyEnforced says whether serve applies the policy section; check
// says so while it does not.
const policyEnforced = true

// policyStatus is check's account of the policy section.
func policyStatus(p config.Policy) string {
	var s string
	if len(p.Rules) == 0 && p.Default == config.ActionAllow {
		s = "allow every call (no policy section)"
	} else {
		count := map[string]int{}
		rates := 0
		for _, r := range p.Rules {
			count[r.Action]++
			if r.Rate.Limit > 0 {
				rates++
			}
		}
		var parts []string
		for _, a := range []string{config.ActionDeny, config.ActionAsk, config.ActionAllow} {
			if count[a] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count[a], a))
			}
		}
		if rates > 0 {
			parts = append(parts, plural(rates, "rate"))
		}
		s = fmt.Sprintf("default %s, %s", p.Default, plural(len(p.Rules), "rule"))
		if len(parts) > 0 {
			s += " (" + strings.Join(parts, ", ") + ")"
		}
		s += fmt.Sprintf("; a person has %s to answer an ask", p.ApprovalTimeout)
	}
	if !policyEnforced {
		s += "; not enforced by this build yet"
	}
	return s
}

// auditStatus is check's account of the audit section.
func auditStatus(a config.Audit) string {
	if a.File == "" {
		return "off (no audit: section)"
	}
	code := "runs' code not kept, only a hash (audit.capture_code: true keeps it)"
	if a.CaptureCode {
		code = "runs' code kept, tokenized (audit.capture_code)"
	}
	return fmt.Sprintf("%s, rotated past %d MB, %d kept; %s; toolfold audit prints it", a.File, a.MaxSizeMB, a.MaxBackups, code)
}

// pinsStatus is check's account of the tool pins in st, listing the tools
// whose definition changed; bad is true when the store failed (a changed
// tool is held, not broken).
func pinsStatus(ctx context.Context, p config.Policy, st store.Store) (line string, bad bool) {
	if p.NoPinTools {
		return "off (policy.pin_tools: false): a tool whose definition changes is not held", false
	}
	if st == nil {
		return "none (no store)", false
	}
	pins := policy.NewPins(st)
	all, err := pins.List(ctx)
	if err != nil {
		return "error: " + err.Error() + "; while the store fails or a pin is refused, the tools concerned are held (each call asks first)", true
	}
	var changed []string
	for _, p := range all {
		switch {
		case p.Refused != "":
			changed = append(changed, p.Name+" (its stored pin was refused: "+p.Refused+")")
		case p.State() == policy.PinChanged:
			changed = append(changed, p.Name)
		}
	}
	if len(changed) == 0 {
		return fmt.Sprintf("%s pinned, none changed", plural(len(all), "tool")), false
	}
	return fmt.Sprintf("%s pinned; changed since pinned (each call asks first until approved with toolfold tools approve NAME): %s",
		plural(len(all), "tool"), strings.Join(changed, ", ")), false
}
