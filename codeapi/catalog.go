package codeapi

import (
	"encoding/json"
	"strings"

	"github.com/toolfold/toolfold/index"
)

// Catalog is what Write writes: the servers with their tools, and the
// saved skills.
type Catalog struct {
	Servers []Server
	Skills  []Skill
}

// Server is one server's folder.
type Server struct {
	Name    string // as in proxy.yaml ("google-drive")
	Ident   string // its script identifier, the folder's name ("google_drive")
	Purpose string // a few words: what search_tools' description says of it
	// Unavailable says why the server's tools cannot be called now; ""
	// when they can.
	Unavailable string
	Tools       []Tool
	// PII: some text of the server's holds personal data (its README and
	// files are tokenized with Options.Tokenize).
	PII bool
}

// Tool is one tool's files.
type Tool struct {
	Name  string // the upstream's name
	Ident string // its script identifier within the server, the files' name
	QName string // "server.tool": what the functions call
	// Summary is its search_tools line at summary detail (signature and
	// first sentence), per language name.
	Summary map[string]string
	// Full is its search_tools text at full detail (description,
	// parameters, result shape, example), per language name.
	Full         map[string]string
	InputSchema  map[string]any
	OutputSchema map[string]any
	PII          bool // its texts hold personal data
}

// Skill is one saved skill's folder.
type Skill struct {
	Name, Description, Language, Notes, Code string
	Parameters, Result                       json.RawMessage
}

// Languages are the languages Write writes files for.
var Languages = []string{"python", "javascript", "lua"}

// Options tune FromIndex.
type Options struct {
	// Purpose gives a server's purpose; nil: the server's description.
	Purpose func(server string) string
	// HoldsPII reports whether a tool's texts hold personal data; a
	// server's name with tool "" asks about the server's own texts. Nil:
	// none do.
	HoldsPII func(server, tool string) bool
}

// FromIndex builds the Catalog of ix's servers and tools (the skills
// server, which holds saved skills, is left to Catalog.Skills).
func FromIndex(ix *index.Index, skillServer string, o *Options) Catalog {
	if o == nil {
		o = &Options{}
	}
	var c Catalog
	byServer := map[string]int{}
	for _, s := range ix.Servers() {
		if s.Name == skillServer {
			continue
		}
		sv := Server{Name: s.Name, Ident: ix.ServerIdent(s.Name), Purpose: s.Description}
		if o.Purpose != nil {
			sv.Purpose = o.Purpose(s.Name)
		}
		if !s.Available {
			sv.Unavailable = s.Error
			if sv.Unavailable == "" {
				sv.Unavailable = "not connected"
			}
		}
		if sv.Ident == "" {
			sv.Ident = index.ScriptIdent(s.Name)
		}
		sv.PII = o.HoldsPII != nil && o.HoldsPII(s.Name, "")
		byServer[s.Name] = len(c.Servers)
		c.Servers = append(c.Servers, sv)
	}
	for _, h := range ix.All() {
		i, ok := byServer[h.Tool.Server]
		if !ok {
			continue
		}
		_, toolID, _ := strings.Cut(h.Ident, ".")
		t := Tool{Name: h.Tool.Name, Ident: toolID, QName: h.QName,
			Summary: map[string]string{}, Full: map[string]string{},
			InputSchema: h.Tool.InputSchema, OutputSchema: h.Tool.OutputSchema}
		for _, lang := range Languages {
			t.Summary[lang] = strings.TrimSpace(ix.Render("", []index.Hit{h}, index.DetailSummary, lang))
			t.Full[lang] = strings.TrimSpace(ix.Render("", []index.Hit{h}, index.DetailFull, lang))
		}
		t.PII = o.HoldsPII != nil && o.HoldsPII(h.Tool.Server, h.Tool.Name)
		c.Servers[i].Tools = append(c.Servers[i].Tools, t)
		c.Servers[i].PII = c.Servers[i].PII || t.PII
	}
	return c
}
