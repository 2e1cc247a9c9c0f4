package config

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Keys of the toolfold format (proxy.yaml).
var (
	topKeys  = []string{"upstreams", "sandbox", "http", "telemetry", "search", "pii", "expose", "pin", "namespace", "store", "skills", "policy", "audit", "ui"}
	httpKeys = []string{"addr", "bearer_token", "drain_timeout", "max_sessions"}
)

const noUpstreams = `no upstreams: add an "upstreams:" map (see proxy.yaml in the toolfold repo) or point -c at a client config with "mcpServers"`

// toolfold decodes proxy.yaml's format into cfg.
func (d *decoder) toolfold(root *yaml.Node, cfg *Config, x *expander) {
	cfg.Format = "toolfold"
	fs, ok := d.mapping(root, "", `a map with an "upstreams:" key`)
	if !ok {
		return
	}
	src := &upstreamSource{baseDir: cfg.Dir, x: x}
	found, typo := false, false
	var later settingChecks
	for _, f := range fs {
		switch {
		case f.name == "upstreams":
			found = true
			d.upstreams(src, f, cfg)
		case d.setting(f, cfg, x, &later):
		default:
			d.errorf(f.key, join("", f.name), "%s", unknownKey(f.name, topKeys))
			typo = typo || suggest(f.name, topKeys) == "upstreams"
		}
	}
	d.checkSettings(later, cfg)
	if !found && !typo {
		d.errs = append(d.errs, &Error{File: d.file, Msg: noUpstreams})
	}
	d.checkExpose(root, &cfg.Expose, cfg)
}

// settingChecks holds the keys checked against the upstreams once all of
// them are read.
type settingChecks struct {
	pii, piiVal *yaml.Node // pii.trusted_upstreams and pii.flows name upstreams
	policy      *yaml.Node // so do policy rules
}

// setting decodes f if it is one of the toolfold format's top-level keys
// other than "upstreams" (sandbox, policy, audit, …), and reports whether
// it was. A client's file accepts the same keys beside its servers.
func (d *decoder) setting(f field, cfg *Config, x *expander, later *settingChecks) bool {
	switch f.name {
	case "sandbox":
		d.sandbox(f.val, &cfg.Sandbox, cfg.Dir)
	case "http":
		d.http(f.val, &cfg.HTTP, x)
	case "telemetry":
		d.telemetry(f.val, &cfg.Telemetry, x)
	case "search":
		d.search(f.val, &cfg.Search, cfg.Dir, x)
	case "pii":
		d.pii(f.val, &cfg.PII)
		later.pii, later.piiVal = f.key, f.val
	case "store":
		d.store(f.val, &cfg.Store, cfg.Dir, x)
	case "skills":
		d.skills(f.val, &cfg.Skills, cfg.Dir, x)
	case "policy":
		d.policy(f.val, &cfg.Policy)
		later.policy = f.val
	case "audit":
		d.audit(f.val, &cfg.Audit, cfg.Dir, x)
	case "ui":
		d.ui(f.val, &cfg.UI)
	default:
		return d.exposeKey(f, &cfg.Expose)
	}
	return true
}

// checkSettings checks what settings name against the upstreams read.
func (d *decoder) checkSettings(later settingChecks, cfg *Config) {
	if later.pii != nil {
		d.checkPIIUpstreams(later.pii, cfg)
		d.checkFlowServers(later.piiVal, cfg)
	}
	if later.policy != nil {
		d.checkPolicyServers(later.policy, cfg)
	}
}

// upstreams decodes the "upstreams:" map, keeping file order.
func (d *decoder) upstreams(src *upstreamSource, f field, cfg *Config) {
	if isNull(f.val) || (f.val.Kind == yaml.MappingNode && len(f.val.Content) == 0) {
		d.errorf(f.key, "upstreams", "%s", noUpstreams)
		return
	}
	fs, ok := d.mapping(f.val, "upstreams", "a map from a server name to its settings (command, args, … or url)")
	if !ok {
		return
	}
	for _, s := range fs {
		path := join("upstreams", s.name)
		if msg := nameProblem(s.name); msg != "" {
			d.errorf(s.key, path, "%s", msg)
		}
		cfg.Upstreams = append(cfg.Upstreams, d.upstream(src, s.name, s.key, s.val, path))
	}
}

// nameProblem says why name cannot name an upstream, or "".
func nameProblem(name string) string {
	switch {
	case name == "":
		return "an upstream name must not be empty"
	case strings.Contains(name, "."):
		return fmt.Sprintf(`name %q must not contain "." (it separates server and tool in qualified names like server.tool); try %q`, name, normalizeName(name))
	case !validName(name):
		if alt := normalizeName(name); alt != "" {
			return fmt.Sprintf("name %q may hold only letters, digits, '_' and '-'; try %q", name, alt)
		}
		return fmt.Sprintf("name %q may hold only letters, digits, '_' and '-'", name)
	}
	return ""
}

// sandbox decodes the "sandbox:" section over the defaults.
func (d *decoder) sandbox(n *yaml.Node, sb *Sandbox, dir string) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "sandbox", "a map of limits (timeout, memory, …)")
	cpuSet := false
	for _, f := range fs {
		p := join("sandbox", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "timeout":
			setIf(&sb.Timeout)(d.duration(f.val, p))
		case "cpu_time":
			setIf(&sb.CPUTime)(d.duration(f.val, p))
			cpuSet = true
		case "memory":
			setIf(&sb.MemoryBytes)(d.size(f.val, p))
		case "output":
			setIf(&sb.OutputBytes)(d.size(f.val, p))
		case "file_size":
			setIf(&sb.FileBytes)(d.size(f.val, p))
		case "max_frame":
			if v, ok := d.size(f.val, p); ok && v > math.MaxInt32 {
				d.errorf(f.val, p, "must be under 2GiB")
			} else if ok {
				sb.MaxFrameBytes = int(v)
			}
		case "max_tool_calls":
			setIf(&sb.MaxToolCalls)(d.count(f.val, p))
		case "max_concurrency":
			setIf(&sb.MaxConcurrency)(d.count(f.val, p))
		case "open_files":
			setIf(&sb.OpenFiles)(d.count(f.val, p))
		case "processes":
			setIf(&sb.Processes)(d.count(f.val, p))
		case "workspace_budget":
			setIf(&sb.WorkspaceBudget)(d.size(f.val, p))
		case "workspace_size", "workspace_dir":
			d.languageKey(f, p, sb, dir) // languages.go
		case "warm":
			setIf(&sb.Warm)(d.boolean(f.val, p))
		case "prestart":
			d.prestart(f.val, p, sb) // languages.go
		case "require":
			if v, ok := d.str(f.val, p); ok {
				switch v {
				case "full", "degraded", "none":
					sb.Require = v
				default:
					d.errorf(f.val, p, "must be full, degraded or none, got %q (full refuses to run without every isolation layer; see toolfold check)", v)
				}
			}
		default:
			if _, ok := languageKeys()[f.name]; ok {
				d.languageKey(f, p, sb, dir) // languages.go
				break
			}
			d.errorf(f.key, p, "%s", unknownKey(f.name, sandboxKeys()))
		}
	}
	if !cpuSet {
		sb.CPUTime = sb.Timeout
	}
}

// setIf returns a function that stores v in dst when ok: it lets a decode
// that reported its own error leave the default in place.
func setIf[T any](dst *T) func(v T, ok bool) {
	return func(v T, ok bool) {
		if ok {
			*dst = v
		}
	}
}

// http decodes the "http:" section.
func (d *decoder) http(n *yaml.Node, h *HTTP, x *expander) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "http", "a map (addr, bearer_token, drain_timeout, max_sessions)")
	for _, f := range fs {
		p := join("http", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "addr":
			if s, ok := d.str(f.val, p); ok && s != "" {
				if msg := addrProblem(s); msg != "" {
					d.errorf(f.val, p, "%s", msg)
				}
				h.Addr = s
			}
		case "bearer_token":
			if _, ok := d.str(f.val, p); ok {
				v, errs := x.expand(f.val.Value)
				for _, msg := range errs {
					d.errorf(f.val, p, "%s", msg)
				}
				h.BearerToken = v
			}
		case "drain_timeout":
			h.DrainTimeout, _ = d.duration(f.val, p)
		case "max_sessions":
			setIf(&h.MaxSessions)(d.count(f.val, p))
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, httpKeys))
		}
	}
}

// ui decodes the "ui:" key: "off", or a loopback host:port for the
// dashboard's own listener (package dashboard).
func (d *decoder) ui(n *yaml.Node, ui *string) {
	if isNull(n) {
		return
	}
	s, ok := d.str(n, "ui")
	if !ok || s == "" {
		return
	}
	if msg := uiProblem(s); msg != "" {
		d.errorf(n, "ui", "%s", msg)
		return
	}
	*ui = s
}

// uiProblem says why s cannot be the ui key's value, or "".
func uiProblem(s string) string {
	if s == UIOff {
		return ""
	}
	if msg := addrProblem(s); msg != "" {
		return msg + `, or "off"`
	}
	host, _, _ := net.SplitHostPort(s)
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return fmt.Sprintf("%s is not a loopback address: the dashboard shows and answers what the agent does, so it serves this machine only; use 127.0.0.1:PORT (or localhost:PORT)", s)
	}
	return ""
}

// addrProblem says why s is not a host:port to listen on, or "".
func addrProblem(s string) string {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Sprintf("invalid address %q: write host:port, like 127.0.0.1:8765", s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Sprintf("invalid port %q in %q", port, s)
	}
	return ""
}
