package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// PII is the "pii:" section: which personal data and secrets toolfold
// replaces by tokens ([EMAIL_1]) before the model or a script sees them.
// The zero value, and a file without the section, is toolfold's default:
// on, with every built-in detector, no national phone format (numbers in
// international form or introduced by a word such as "phone" are still
// found) unless PhoneFromLocale gives the host locale's, no allowlist, no
// custom pattern, no trusted upstream.
type PII struct {
	Disabled bool // "enabled: false"
	// Detectors holds the detectors the file switched on or off, by name
	// (PIIDetectors); a detector that is absent is on.
	Detectors    map[string]bool
	PhoneRegions []string // ISO 3166 codes, upper-cased (US, DE, …)
	// PhoneRegionsSet is true when the file wrote pii.phone_regions, an
	// empty list included (international formats only); otherwise
	// PhoneFromLocale may set PhoneRegions from the host's locale.
	PhoneRegionsSet bool
	// PhoneRegionsFrom says where PhoneRegions came from, for check:
	// set by PhoneFromLocale.
	PhoneRegionsFrom string
	Allow            []string // values never tokenized
	Custom           []PIICustom
	// TrustedUpstreams are upstream names whose results reach the model
	// untokenized (their arguments are still detokenized).
	TrustedUpstreams []string
	// The per-session vault's bounds; zero means the rewrite package's defaults.
	VaultMaxEntries int
	VaultMaxBytes   int64
	VaultTTL        time.Duration
	// Flows are the rules for where a token's value may go (piiflows.go).
	Flows []PIIFlow
}

// PIICustom is one custom detector: the upper-cased name is the token type.
type PIICustom struct {
	Name    string
	Pattern string // a Go regular expression (RE2 syntax)
}

var (
	piiKeys    = []string{"enabled", "detectors", "phone_regions", "allow", "custom", "trusted_upstreams", "vault", "flows"}
	vaultKeys  = []string{"max_entries", "max_bytes", "ttl"}
	customKeys = []string{"name", "pattern"}
)

// pii decodes the "pii:" section.
func (d *decoder) pii(n *yaml.Node, pii *PII) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "pii", "a map (enabled, detectors, phone_regions, allow, custom, trusted_upstreams, vault, flows)")
	var flowTypes [][]*yaml.Node
	defer func() { d.checkFlowTypes("pii.flows", pii, flowTypes) }()
	for _, f := range fs {
		p := join("pii", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "enabled":
			on, _ := d.boolean(f.val, p)
			pii.Disabled = !on
		case "detectors":
			d.piiDetectors(f.val, p, pii)
		case "phone_regions":
			pii.PhoneRegionsSet = true
			items, _ := d.strList(f.val, p)
			for _, it := range items {
				code := strings.ToUpper(strings.TrimSpace(it.Value))
				if !slices.Contains(PhoneRegionCodes, code) {
					d.errorf(it, p, "no national phone format for %q; use an ISO 3166 region code, such as US, GB or DE (international +CC numbers are found whatever the regions)", it.Value)
					continue
				}
				pii.PhoneRegions = append(pii.PhoneRegions, code)
			}
		case "allow":
			items, _ := d.strList(f.val, p)
			for _, it := range items {
				pii.Allow = append(pii.Allow, it.Value)
			}
		case "custom":
			d.piiCustom(f.val, p, pii)
		case "trusted_upstreams":
			items, _ := d.strList(f.val, p)
			for _, it := range items {
				pii.TrustedUpstreams = append(pii.TrustedUpstreams, it.Value)
			}
		case "vault":
			d.piiVault(f.val, p, pii)
		case "flows":
			flowTypes = d.piiFlows(f.val, p, pii)
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, piiKeys))
		}
	}
}

func (d *decoder) piiDetectors(n *yaml.Node, p string, pii *PII) {
	fs, ok := d.mapping(n, p, "a map from a detector name to true or false, like {email: true, ip_address: false}")
	if !ok {
		return
	}
	pii.Detectors = make(map[string]bool)
	for _, f := range fs {
		if !slices.Contains(PIIDetectors, f.name) {
			d.errorf(f.key, join(p, f.name), "%s", unknownKey(f.name, PIIDetectors))
			continue
		}
		if on, ok := d.boolean(f.val, join(p, f.name)); ok {
			pii.Detectors[f.name] = on
		}
	}
}

func (d *decoder) piiCustom(n *yaml.Node, p string, pii *PII) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, p, `must be a list of {name, pattern}, like [{name: employee_id, pattern: 'EMP-\d{6}'}]`)
		return
	}
	seen := map[string]bool{}
	for i, item := range n.Content {
		item = resolve(item)
		ip := fmt.Sprintf("%s[%d]", p, i)
		fs, ok := d.mapping(item, ip, "a map with name and pattern")
		if !ok {
			continue
		}
		var c PIICustom
		var nameNode, patNode *yaml.Node
		for _, f := range fs {
			switch f.name {
			case "name":
				c.Name, _ = d.str(f.val, join(ip, "name"))
				nameNode = f.val
			case "pattern":
				c.Pattern, _ = d.str(f.val, join(ip, "pattern"))
				patNode = f.val
			default:
				d.errorf(f.key, join(ip, f.name), "%s", unknownKey(f.name, customKeys))
			}
		}
		switch {
		case nameNode == nil || patNode == nil:
			d.errorf(item, ip, "needs both name and pattern")
			continue
		case !validCustomName(c.Name):
			d.errorf(nameNode, join(ip, "name"), "%q: use letters, digits and '_', starting with a letter (it becomes the token type, e.g. [EMPLOYEE_ID_1]), and not a built-in type", c.Name)
			continue
		case seen[strings.ToUpper(c.Name)]:
			d.errorf(nameNode, join(ip, "name"), "%q is defined twice", c.Name)
			continue
		}
		re, err := regexp.Compile(c.Pattern)
		if err != nil {
			d.errorf(patNode, join(ip, "pattern"), "not a Go regular expression: %v", err)
			continue
		}
		if re.MatchString("") {
			d.errorf(patNode, join(ip, "pattern"), "%q matches empty text; make it match at least one character", c.Pattern)
			continue
		}
		seen[strings.ToUpper(c.Name)] = true
		pii.Custom = append(pii.Custom, c)
	}
}

func (d *decoder) piiVault(n *yaml.Node, p string, pii *PII) {
	fs, ok := d.mapping(n, p, "a map (max_entries, max_bytes, ttl)")
	if !ok {
		return
	}
	for _, f := range fs {
		fp := join(p, f.name)
		switch f.name {
		case "max_entries":
			pii.VaultMaxEntries, _ = d.count(f.val, fp)
		case "max_bytes":
			pii.VaultMaxBytes, _ = d.size(f.val, fp)
		case "ttl":
			pii.VaultTTL, _ = d.duration(f.val, fp)
		default:
			d.errorf(f.key, fp, "%s", unknownKey(f.name, vaultKeys))
		}
	}
}

// checkPIIUpstreams: every trusted upstream must be configured.
func (d *decoder) checkPIIUpstreams(n *yaml.Node, cfg *Config) {
	for _, name := range cfg.PII.TrustedUpstreams {
		if !slices.ContainsFunc(cfg.Upstreams, func(u Upstream) bool { return u.Name == name }) {
			var names []string
			for _, u := range cfg.Upstreams {
				names = append(names, u.Name)
			}
			d.errorf(n, "pii.trusted_upstreams", "%q is not an upstream; list names from upstreams: (%s)", name, strings.Join(names, ", "))
		}
	}
}

// DetectorOn reports whether the named built-in detector is on.
func (p PII) DetectorOn(name string) bool {
	on, set := p.Detectors[name]
	return !set || on
}
