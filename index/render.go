package index

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolfold/toolfold/sandbox"
)

// Limits that keep rendered hits compact.
const (
	summaryParams  = 8   // parameters a summary signature lists before "...N more"
	summaryEnum    = 4   // enum values a summary type lists
	summaryType    = 60  // bytes of a summary parameter type before it collapses to "object"
	summaryText    = 200 // bytes of a first sentence a summary shows
	fullEnum       = 25  // enum values a full parameter lists
	fullType       = 200 // bytes of a full type shape
	fullNestDepth  = 2   // levels of nested properties a full listing shows
	noneServers    = 20  // servers listed when nothing matched
	noneMatching   = 8   // servers listed whose tools match outside a server filter
	noneSuggestion = 3   // close names offered when nothing matched
)

// Render is the text search_tools returns for hits at a detail level, for
// script language lang ("lua", a sandbox.Language's name or alias; an
// unknown language renders as Lua). When
// hits is empty it says nothing matched and suggests servers (name,
// description, tool count) and close names. Tools of an unavailable server
// are marked as such.
func (ix *Index) Render(query string, hits []Hit, detail Detail, lang string) string {
	return ix.RenderWith(query, hits, detail, lang, RenderOptions{})
}

// RenderOptions add what a deployment learned to rendering.
type RenderOptions struct {
	// Shapes are result shapes observed in this deployment: full detail
	// shows one, marked observed, for a tool without an outputSchema.
	Shapes *Shapes
	// Label, when set, gives the short note shown beside a tool (its
	// qualified name), such as its policy: "denied", "asks first".
	Label func(qname string) string
}

// RenderWith is Render with options.
func (ix *Index) RenderWith(query string, hits []Hit, detail Detail, lang string, o RenderOptions) string {
	if len(hits) == 0 {
		return ix.renderNone(query)
	}
	sx := syntaxFor(lang)
	var b strings.Builder
	ix.writeNamedDown(&b, query)
	said := map[string]bool{} // servers whose unavailability was explained
	for i, h := range hits {
		v := ix.view(h)
		v.reason = sayOnce(said, v)
		if o.Label != nil {
			v.label = o.Label(v.qname)
		}
		switch detail {
		case DetailName:
			v.name(&b)
		case DetailFull:
			if i > 0 {
				b.WriteByte('\n')
			}
			v.full(&b, sx, o.Shapes.Shape(v.qname))
		default:
			v.summary(&b, sx)
		}
	}
	return b.String()
}

// sayOnce is the reason to show beside v: the whole reason a server is
// unavailable at its first tool in a result, "as above" at the next ones,
// so a server still connecting does not repeat its notice on every line.
func sayOnce(said map[string]bool, v toolView) string {
	if v.available || v.reason == "" {
		return v.reason
	}
	if said[v.t.Server] {
		return "as above"
	}
	said[v.t.Server] = true
	return v.reason
}

// toolView is what rendering needs of one hit.
type toolView struct {
	t                 *Tool
	qname             string
	serverID, toolID  string
	available         bool
	reason, firstSent string
	label             string // RenderOptions.Label's note; "" for none
}

func (ix *Index) view(h Hit) toolView {
	if i, ok := ix.byName[h.QName]; ok && ix.docs[i].tool.Server == h.Tool.Server {
		d := &ix.docs[i]
		return toolView{t: d.tool, qname: d.qname, serverID: d.serverID, toolID: d.toolID,
			available: d.available, reason: d.reason, firstSent: d.first}
	}
	// A hit from elsewhere: derive what the index would have.
	first, _ := firstSentence(h.Tool.Description)
	return toolView{t: h.Tool, qname: h.Tool.Server + "." + h.Tool.Name,
		serverID: ScriptIdent(h.Tool.Server), toolID: ScriptIdent(h.Tool.Name),
		available: true, firstSent: first}
}

// marks is what is noted beside a tool's name: unavailable, and its label
// (" [asks first]").
func (v toolView) marks() string {
	if v.label == "" {
		return v.unavailable()
	}
	return v.unavailable() + " [" + v.label + "]"
}

// unavailable is " (unavailable: reason)" for a tool of a server that is down.
func (v toolView) unavailable() string {
	if v.available {
		return ""
	}
	if v.reason == "" {
		return " (unavailable)"
	}
	return " (unavailable: " + oneLine(v.reason) + ")"
}

// name writes the qualified name, and the script path when it is not the
// plain identifier form of the name (a collision took a suffix).
func (v toolView) name(b *strings.Builder) {
	b.WriteString(v.qname)
	if v.serverID != ScriptIdent(v.t.Server) || v.toolID != ScriptIdent(v.t.Name) {
		fmt.Fprintf(b, " (in scripts: %s.%s)", v.serverID, v.toolID)
	}
	b.WriteString(v.marks())
	b.WriteByte('\n')
}

// summary writes the call signature and the first sentence.
func (v toolView) summary(b *strings.Builder, sx sandbox.Syntax) {
	sd := schemaDoc{root: v.t.InputSchema}
	ps := sd.params(v.t.InputSchema)
	var sig []sandbox.SigParam
	more := 0
	for _, p := range ps {
		if !p.required && len(sig) >= summaryParams {
			more++
			continue
		}
		typ := sd.typeString(p.schema, typeOpts{depth: 1, maxEnum: summaryEnum, maxBytes: summaryType})
		sig = append(sig, sandbox.SigParam{Name: p.name, Type: typ, Required: p.required})
	}
	b.WriteString(sx.Signature(sx.ToolExpr(v.serverID, v.toolID), sig, more))
	if text := strings.TrimSpace(v.marks() + " " + clip(oneLine(v.firstSent), summaryText)); text != "" {
		b.WriteString(" " + sx.Comment() + " " + text)
	}
	b.WriteByte('\n')
}

// full writes everything about a tool: description, parameters, result
// shape, annotations and an example call.
func (v toolView) full(b *strings.Builder, sx sandbox.Syntax, observed string) {
	b.WriteString(v.qname + v.marks() + "\n")
	if d := strings.TrimSpace(v.t.Description); d != "" {
		b.WriteString(d + "\n")
	}
	sd := schemaDoc{root: v.t.InputSchema}
	ps := sd.params(v.t.InputSchema)
	if len(ps) > 0 {
		b.WriteString("Parameters:\n")
		for _, p := range ps {
			sd.writeParam(b, p, 1)
		}
	}
	if out := v.t.OutputSchema; len(out) > 0 {
		od := schemaDoc{root: out}
		b.WriteString("Returns: " + od.typeString(out, typeOpts{depth: 3, maxEnum: summaryEnum, maxBytes: 2 * fullType}) + "\n")
	} else if observed != "" {
		b.WriteString("Returns (observed, not declared): " + clip(observed, 2*fullType) + "\n")
	}
	if a := annotations(v.t.Annotations); a != "" {
		b.WriteString("Annotations: " + a + "\n")
	}
	var args []sandbox.ExampleArg
	for _, p := range ps {
		if p.required {
			args = append(args, sandbox.ExampleArg{Name: p.name, Value: sd.exampleValue(p)})
		}
	}
	b.WriteString("Example: " + sx.Example(sx.ToolExpr(v.serverID, v.toolID), args) + "\n")
}

// writeParam writes one parameter line, then its nested properties.
func (d schemaDoc) writeParam(b *strings.Builder, p param, depth int) {
	s := p.schema
	children, elem := d.nested(s)
	var typ string
	if children != nil && depth <= fullNestDepth {
		typ = "object" + elem
	} else {
		typ = d.typeString(s, typeOpts{depth: 1, maxEnum: fullEnum, maxBytes: fullType})
		children = nil
	}
	facts := []string{typ + constraints(s)}
	if p.required {
		facts = append(facts, "required")
	} else {
		facts = append(facts, "optional")
	}
	if def, ok := s["default"]; ok {
		facts = append(facts, "default "+sandbox.JSONLiteral(def))
	}
	b.WriteString(strings.Repeat("  ", depth) + shownName(p.name) + " (" + strings.Join(facts, ", ") + ")")
	desc := oneLine(str(s, "description"))
	if desc == "" {
		desc = oneLine(str(s, "title"))
	}
	if desc != "" {
		b.WriteString(": " + desc)
	}
	b.WriteByte('\n')
	for _, c := range children {
		d.writeParam(b, c, depth+1)
	}
}

// nested returns the properties of an object, or of the objects of an
// array ("[]" as elem), or nil.
func (d schemaDoc) nested(s map[string]any) (ps []param, elem string) {
	s = d.deref(s)
	if items, ok := s["items"].(map[string]any); ok {
		if ps := d.params(items); len(ps) > 0 {
			return ps, "[]"
		}
		return nil, ""
	}
	if str(s, "type") == "object" || s["properties"] != nil {
		return d.params(s), ""
	}
	return nil, ""
}

// constraints spells a schema's format and range: " date-time", " 1..100".
func constraints(s map[string]any) string {
	var out string
	if f := str(s, "format"); f != "" {
		out += " " + shownName(f)
	}
	lo, hasLo := s["minimum"]
	hi, hasHi := s["maximum"]
	switch {
	case hasLo && hasHi:
		out += " " + sandbox.JSONLiteral(lo) + ".." + sandbox.JSONLiteral(hi)
	case hasLo:
		out += " >=" + sandbox.JSONLiteral(lo)
	case hasHi:
		out += " <=" + sandbox.JSONLiteral(hi)
	}
	return out
}

// annotations spells the behaviour hints a tool declares.
func annotations(a Annotations) string {
	var parts []string
	for _, h := range []struct {
		v    *bool
		name string
	}{{a.ReadOnly, "read-only"}, {a.Destructive, "destructive"}, {a.Idempotent, "idempotent"}, {a.OpenWorld, "open-world"}} {
		switch {
		case h.v == nil:
		case *h.v:
			parts = append(parts, h.name)
		default:
			parts = append(parts, "not "+h.name)
		}
	}
	return strings.Join(parts, ", ")
}

// exampleValue picks a plausible argument for a parameter: its default,
// first example, first enum value or const, else a placeholder of its type.
func (d schemaDoc) exampleValue(p param) any {
	s := p.schema
	if v, ok := s["default"]; ok && v != nil {
		return v
	}
	if ex := asSlice(s["examples"]); len(ex) > 0 {
		return ex[0]
	}
	if enum := asSlice(s["enum"]); len(enum) > 0 {
		return enum[0]
	}
	if v, ok := s["const"]; ok {
		return v
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		for _, a := range asSlice(s[kw]) {
			if m, ok := a.(map[string]any); ok && str(d.deref(m), "type") != "null" {
				return d.exampleValue(param{name: p.name, schema: d.deref(m)})
			}
		}
	}
	typ := str(s, "type")
	if ts := asSlice(s["type"]); len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "number", "integer":
		if lo, ok := s["minimum"]; ok {
			return lo
		}
		return 1.0
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return placeholder(p.name)
}

// placeholder is a sample string for a parameter, chosen by its name.
func placeholder(name string) string {
	ws := strings.Join(words(name), " ")
	switch {
	case strings.Contains(ws, "url") || strings.Contains(ws, "uri") || strings.Contains(ws, "link"):
		return "https://example.com"
	case strings.Contains(ws, "email"):
		return "user@example.com"
	case strings.Contains(ws, "dir") || strings.Contains(ws, "folder"):
		return "."
	case strings.Contains(ws, "path") || strings.Contains(ws, "file"):
		return "README.md"
	}
	return "..."
}

// renderNone explains an empty result: servers that match elsewhere or
// all servers, and close names.
func (ix *Index) renderNone(query string) string {
	var b strings.Builder
	if q := oneLine(query); q != "" {
		fmt.Fprintf(&b, "No tools matched %q.\n", q)
	} else {
		b.WriteString("No tools.\n")
	}
	counts := make(map[string]int)
	var order []string
	for _, h := range ix.search(query, "", maxLimit, nil) {
		if counts[h.Tool.Server] == 0 {
			order = append(order, h.Tool.Server)
		}
		counts[h.Tool.Server]++
	}
	if len(order) > 0 {
		b.WriteString("Servers with matching tools:\n")
		for i, name := range order {
			if i == noneMatching {
				fmt.Fprintf(&b, "  ...and %d more\n", len(order)-noneMatching)
				break
			}
			ix.writeServer(&b, name, fmt.Sprintf("%d matching", counts[name]))
		}
	} else if len(ix.servers) > 0 {
		fmt.Fprintf(&b, "Servers (%d):\n", len(ix.servers))
		for i, s := range ix.servers {
			if i == noneServers {
				fmt.Fprintf(&b, "  ...and %d more\n", len(ix.servers)-noneServers)
				break
			}
			ix.writeServer(&b, s.Name, "")
		}
	}
	if names := ix.Suggest(query, noneSuggestion); len(names) > 0 {
		b.WriteString("Close names: " + strings.Join(names, ", ") + "\n")
	}
	b.WriteString("Try other words for what the tool does, or a server filter to browse one server.\n")
	return b.String()
}

// writeServer writes "  name (N tools, extra, unavailable: why): description".
func (ix *Index) writeServer(b *strings.Builder, name, extra string) {
	var info ServerInfo
	for _, s := range ix.servers {
		if s.Name == name {
			info = s
			break
		}
	}
	facts := []string{plural(ix.serverTool[name], "tool")}
	if extra != "" {
		facts = append(facts, extra)
	}
	if !info.Available {
		if info.Error != "" {
			facts = append(facts, "unavailable: "+oneLine(info.Error))
		} else {
			facts = append(facts, "unavailable")
		}
	}
	b.WriteString("  " + name + " (" + strings.Join(facts, ", ") + ")")
	if d := oneLine(info.Description); d != "" {
		b.WriteString(": " + d)
	}
	b.WriteByte('\n')
}

// clip shortens s to at most n bytes, at a word boundary when there is one,
// marking the cut with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n/3 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:") + "..."
}

// oneLine collapses white space runs, newlines included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shownName is a name from a schema (a parameter, a property, a type,
// a format) as a listing shows it: as written when it is plain (letters,
// digits, _ - . $ @ :), else quoted with Go's escapes, so a name holding
// a newline or spaces cannot forge a line or a fact of the listing (a
// saved skill's parameters are written by a model).
func shownName(name string) string {
	plain := name != ""
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.$@:", r) {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return strconv.Quote(name)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeNamedDown notes the unavailable servers without tools that the
// query names: their tools cannot be among the hits.
func (ix *Index) writeNamedDown(b *strings.Builder, query string) {
	var words []string
	for _, s := range ix.servers {
		if s.Available || ix.serverTool[s.Name] > 0 {
			continue
		}
		if words == nil {
			words = strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r == ' ' || r == ',' || r == '.' })
		}
		for _, w := range words {
			if w == strings.ToLower(s.Name) || w == strings.ToLower(ix.serverIDs[s.Name]) {
				b.WriteString("Server " + s.Name + " is unavailable")
				if s.Error != "" {
					b.WriteString(": " + oneLine(s.Error))
				}
				b.WriteString("; its tools are not listed.\n")
				break
			}
		}
	}
}
