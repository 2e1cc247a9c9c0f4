package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults for every upstream.
const (
	DefaultConnectTimeout = 60 * time.Second
	DefaultCallTimeout    = 120 * time.Second
)

// Keys of one upstream in proxy.yaml, and of one server in a client's file.
var (
	upstreamKeys = []string{"description", "transport", "command", "args", "env", "cwd",
		"url", "headers", "oauth", "connect_timeout", "call_timeout", "disabled", "scope", "instances"}
	oauthKeys  = []string{"client_id", "client_secret", "scopes"}
	clientKeys = []string{"type", "command", "args", "env", "cwd", "url", "headers",
		"disabled", "description"}
	// clientURLKeys name the url in some clients' files: Windsurf's
	// serverUrl, Gemini CLI's httpUrl.
	clientURLKeys = []string{"serverUrl", "httpUrl"}
	// clientOtherKeys are keys clients really use that toolfold does not:
	// a warning, never taken for a typo of a key toolfold reads.
	clientOtherKeys = []string{"autoApprove", "alwaysAllow", "timeout", "envFile", "transportType",
		"trust", "includeTools", "excludeTools", "enabled", "oauth", "auth", "name", "icon",
		"version", "gallery", "dev", "sandboxEnabled", "startup_timeout_sec", "tool_timeout_sec",
		"networkTimeout", "autoStart", "disabledTools", "enabledTools", "tools", "cwdFile"}
)

// maxDescription is the length past which a description draws a warning:
// it is repeated in search_tools' description, which every client loads.
const maxDescription = 100

// entry is one upstream being decoded.
type entry struct {
	u       Upstream
	key     *yaml.Node        // the name, for positions
	path    string            // "upstreams.github"
	set     map[string]*field // each field present
	envErrs []*Error          // unresolvable ${VAR}s, kept apart: a disabled upstream may have them
	guessed map[string]bool   // keys suggested for misspelt ones: not reported missing as well
}

// upstreamSource says how to read an entry in the format at hand.
type upstreamSource struct {
	client  bool   // a client's file: unknown keys warn; "type" not "transport"
	baseDir string // where a relative cwd starts, and the default cwd
	x       *expander
}

// upstream decodes one entry. The errors go to d, or become warnings for a
// disabled server in a client's file (the client would not start it either).
func (d *decoder) upstream(src *upstreamSource, name string, key, val *yaml.Node, path string) Upstream {
	e := &entry{u: Upstream{Name: name}, key: key, path: path, set: map[string]*field{}, guessed: map[string]bool{}}
	if msg := reservedUpstream(name); msg != "" {
		d.errorf(key, path, "%s", msg)
	}
	sub := &decoder{file: d.file, budget: d.budget}
	if fs, ok := sub.mapping(val, path, "a map of settings (command, args, … or url)"); ok {
		for _, f := range fs {
			if !isNull(f.val) || (f.name == "oauth" && !src.client) { // a bare oauth: turns it on
				sub.field(src, e, f)
			}
		}
		sub.check(src, e)
	}
	d.budget = sub.budget
	d.warns = append(d.warns, sub.warns...)
	switch {
	case e.u.Disabled && src.client:
		for _, err := range append(sub.errs, e.envErrs...) {
			d.warns = append(d.warns, &Error{File: err.File, Line: err.Line, Col: err.Col, Path: err.Path,
				Msg: err.Msg + " (ignored: the server is disabled)"})
		}
	case e.u.Disabled: // proxy.yaml: strict, but a disabled upstream's variables need not be set
		d.errs = append(d.errs, sub.errs...)
	default:
		d.errs = append(d.errs, sub.errs...)
		d.errs = append(d.errs, e.envErrs...)
	}
	return e.u
}

// field decodes one setting of an upstream.
func (d *decoder) field(src *upstreamSource, e *entry, f field) {
	p := join(e.path, f.name)
	known := upstreamKeys
	if src.client {
		known = clientKeys
		if slices.Contains(clientURLKeys, f.name) && e.set["url"] == nil {
			f.name = "url"
		}
	}
	if !slices.Contains(known, f.name) {
		d.unknownUpstreamKey(src, f, p, known)
		e.guessed[suggest(f.name, known)] = true
		return
	}
	e.set[f.name] = &f
	u := &e.u
	switch f.name {
	case "description":
		if s, ok := d.str(f.val, p); ok {
			u.Description = strings.Join(strings.Fields(s), " ")
		}
		if len(u.Description) > maxDescription {
			d.warnf(f.val, p, "%d characters long; a few words keep search_tools' description (which every client loads) small", len(u.Description))
		}
	case "transport", "type":
		u.Transport = d.transport(f.val, p, src.client)
	case "command":
		u.Command = d.text(src, e, f.val, p)
	case "cwd":
		u.Cwd = d.text(src, e, f.val, p)
	case "url":
		u.URL = d.text(src, e, f.val, p)
	case "args":
		items, _ := d.strList(f.val, p)
		for i, item := range items {
			u.Args = append(u.Args, d.expandNode(src.x, e, item, fmt.Sprintf("%s[%d]", p, i)))
		}
	case "env", "headers":
		d.stringMap(src, e, f, p)
	case "oauth":
		u.OAuth = d.oauth(src, e, f.val, p)
	case "connect_timeout":
		u.ConnectTimeout, _ = d.duration(f.val, p)
	case "call_timeout":
		u.CallTimeout, _ = d.duration(f.val, p)
	case "disabled":
		u.Disabled, _ = d.boolean(f.val, p)
	case "scope":
		if s, ok := d.str(f.val, p); ok {
			if s != ScopeShared && s != ScopeSession {
				d.errorf(f.val, p, "must be shared (one instance for every client session) or session (one per client session), not %q", s)
			} else {
				u.Scope = s
			}
		}
	case "instances":
		if n, ok := d.count(f.val, p); ok {
			if n < 1 {
				d.errorf(f.val, p, "must be at least 1")
			} else {
				u.Instances = n
			}
		}
	}
}

// oauth decodes an upstream's oauth settings; a null or empty map turns
// OAuth on with every setting discovered (client registration included).
func (d *decoder) oauth(src *upstreamSource, e *entry, n *yaml.Node, p string) *OAuth {
	o := &OAuth{}
	if isNull(n) {
		return o
	}
	fs, ok := d.mapping(n, p, "a map (client_id, client_secret, scopes), or {} to discover everything")
	if !ok {
		return o
	}
	for _, f := range fs {
		fp := join(p, f.name)
		switch f.name {
		case "client_id":
			o.ClientID = d.text(src, e, f.val, fp)
		case "client_secret":
			o.ClientSecret = d.text(src, e, f.val, fp)
		case "scopes":
			items, _ := d.strList(f.val, fp)
			for i, item := range items {
				if s := d.expandNode(src.x, e, item, fmt.Sprintf("%s[%d]", fp, i)); s != "" {
					o.Scopes = append(o.Scopes, strings.Fields(s)...)
				}
			}
		default:
			d.errorf(f.key, fp, "%s", unknownKey(f.name, oauthKeys))
		}
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		d.errorf(n, join(p, "client_id"), "required with client_secret (the secret belongs to a client registered in advance)")
	}
	return o
}

// text reads a non-empty string and expands its ${VAR}s.
func (d *decoder) text(src *upstreamSource, e *entry, n *yaml.Node, p string) string {
	s, ok := d.str(n, p)
	if !ok {
		return ""
	}
	if s == "" {
		d.errorf(n, p, "must not be empty")
		return ""
	}
	before := len(e.envErrs)
	v := d.expandNode(src.x, e, n, p)
	if v == "" && len(e.envErrs) == before {
		d.errorf(n, p, "is empty once ${...} are expanded")
	}
	return v
}

// stringMap decodes env or headers, expanding values.
func (d *decoder) stringMap(src *upstreamSource, e *entry, f field, p string) {
	fs, _ := d.strMap(f.val, p)
	m := make(map[string]string, len(fs))
	for _, kv := range fs {
		kp := join(p, kv.name)
		switch {
		case f.name == "env" && strings.ContainsAny(kv.name, "=\x00"):
			d.errorf(kv.key, kp, "variable names cannot contain '=' or NUL")
		case f.name == "headers" && !ValidHeaderName(kv.name):
			d.errorf(kv.key, kp, "invalid HTTP header name %q", kv.name)
		}
		v := d.expandNode(src.x, e, kv.val, kp)
		if f.name == "headers" && strings.ContainsAny(v, "\r\n") {
			d.errorf(kv.val, kp, "a header value cannot contain line breaks")
		}
		m[kv.name] = v
	}
	if f.name == "env" {
		e.u.Env = m
	} else {
		e.u.Headers = m
	}
}

func (d *decoder) unknownUpstreamKey(src *upstreamSource, f field, p string, known []string) {
	switch {
	case !src.client:
		d.errorf(f.key, p, "%s", unknownKey(f.name, known))
	case f.name == "envFile":
		d.warnf(f.key, p, "envFile is not supported, so its variables will not be set: copy them into env")
	case slices.Contains(clientOtherKeys, f.name):
		d.warnf(f.key, p, "ignored: toolfold does not use %q", f.name)
	case suggest(f.name, known) != "":
		// A near miss of a key the entry needs: the client would not
		// start this server either, so say so here, with the line.
		d.errorf(f.key, p, "%s", unknownKey(f.name, known))
	default:
		d.warnf(f.key, p, "ignored: toolfold does not use %q", f.name)
	}
}

// transport reads "transport" (proxy.yaml) or "type" (a client's file).
func (d *decoder) transport(n *yaml.Node, p string, client bool) string {
	s, ok := d.str(n, p)
	if !ok {
		return ""
	}
	switch v := strings.ToLower(s); {
	case v == "stdio", v == "http":
		return v
	case v == "sse":
		d.errorf(n, p, `%q (the deprecated HTTP+SSE transport) is not supported by toolfold; if the server also speaks streamable HTTP (often at /mcp rather than /sse), use "http" and point url there; otherwise run it locally over stdio`, s)
	case client && (v == "streamable-http" || v == "streamablehttp" || v == "streamable_http"):
		return "http"
	case v == "streamable-http" || v == "streamablehttp" || v == "streamable_http":
		d.errorf(n, p, `%q: write "http" (toolfold's http transport is streamable HTTP)`, s)
	default:
		d.errorf(n, p, `must be "stdio" or "http", got %q`, s)
	}
	return ""
}

// expandNode expands the ${VAR}s in a scalar, recording problems in e.
func (d *decoder) expandNode(x *expander, e *entry, n *yaml.Node, path string) string {
	v, errs := x.expand(n.Value)
	for _, msg := range errs {
		e.envErrs = append(e.envErrs, d.at(n, path, msg))
	}
	if strings.ContainsRune(v, 0) {
		d.errorf(n, path, "contains a NUL character")
	}
	return v
}

// check settles the transport and applies defaults once every field is read.
func (d *decoder) check(src *upstreamSource, e *entry) {
	u := &e.u
	key := "transport"
	if src.client {
		key = "type"
	}
	if u.Transport == "" && e.set[key] == nil {
		d.inferTransport(e)
	}
	switch u.Transport {
	case "stdio":
		d.only(e, "stdio", "url", "headers", "oauth")
		if e.set["command"] == nil && !e.guessed["command"] {
			d.errorf(e.key, join(e.path, "command"), "required for stdio")
		}
		u.Cwd = d.cwd(src, e)
	case "http":
		d.only(e, "http", "command", "args", "env", "cwd")
		if u.Scope == ScopeSession {
			d.errorf(e.set["scope"].val, join(e.path, "scope"), "session starts a server process per client session, which only a stdio upstream has; an http server keeps its sessions apart itself")
		}
		if f := e.set["oauth"]; f != nil {
			for k := range u.Headers {
				if strings.EqualFold(k, "Authorization") {
					d.errorf(f.key, join(e.path, "oauth"), "headers.%s sets the Authorization header that oauth fills with the signed-in token; keep one of them", k)
				}
			}
		}
		switch {
		case e.set["url"] != nil:
			d.checkURL(e)
		case !e.guessed["url"]:
			d.errorf(e.key, join(e.path, "url"), "required for http")
		}
	}
	if e.set["instances"] != nil && u.Scope != ScopeSession {
		d.errorf(e.set["instances"].key, join(e.path, "instances"), "only bounds a scope: session upstream's instances; remove it or set scope: session")
	}
	if u.ConnectTimeout == 0 {
		u.ConnectTimeout = DefaultConnectTimeout
	}
	if u.CallTimeout == 0 {
		u.CallTimeout = DefaultCallTimeout
	}
}

func (d *decoder) inferTransport(e *entry) {
	cmd, url := e.set["command"] != nil, e.set["url"] != nil
	switch {
	case cmd && url:
		d.errorf(e.key, e.path, "has both command and url: keep command to run the server over stdio, or url to reach it over http")
	case cmd:
		e.u.Transport = "stdio"
	case url:
		e.u.Transport = "http"
	case !e.guessed["command"] && !e.guessed["url"]:
		d.errorf(e.key, e.path, "needs command (to run the server over stdio) or url (to reach it over http)")
	}
}

// only reports the keys in e that the transport does not use.
func (d *decoder) only(e *entry, transport string, unused ...string) {
	for _, k := range unused {
		if f := e.set[k]; f != nil {
			d.errorf(f.key, join(e.path, k), "not used by the %s transport", transport)
		}
	}
}

func (d *decoder) checkURL(e *entry) {
	n := e.set["url"].val
	path := join(e.path, "url")
	if len(e.envErrs) > 0 {
		return // already reported; the expanded value is incomplete
	}
	u, err := url.Parse(e.u.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		d.errorf(n, path, "must be an http:// or https:// URL") // the value may hold a secret: do not quote it
		return
	}
	if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse") {
		d.warnf(n, path, "ends in /sse, usually the deprecated HTTP+SSE transport, which toolfold does not speak; if connecting fails, use the server's streamable HTTP endpoint (often /mcp)")
	}
}

// cwd resolves the working directory of a stdio upstream: absolute, "~"
// expanded, relative to src.baseDir, which is also the default.
func (d *decoder) cwd(src *upstreamSource, e *entry) string {
	dir := e.u.Cwd
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, ok := homeDir(src.x.lookup)
		if !ok {
			d.errorf(e.set["cwd"].val, join(e.path, "cwd"), "cannot expand ~: HOME is not set")
			return src.baseDir
		}
		dir = home + dir[1:]
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(src.baseDir, dir)
	}
	return filepath.Clean(dir)
}

// ValidHeaderName reports whether s is an HTTP header name: an RFC 9110
// token.
func ValidHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}
