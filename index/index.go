package index

import (
	"slices"
	"strings"
)

// Tool is one upstream tool as the catalog knows it. It mirrors the fields of
// an MCP tool that search and rendering need, without importing the SDK: the
// proxy converts.
type Tool struct {
	Server      string         // upstream name from the config ("filesystem")
	Name        string         // the upstream's own tool name ("read_text_file")
	Title       string         // optional display title
	Description string         // the upstream's description, verbatim
	InputSchema map[string]any // JSON Schema of the arguments (decoded JSON)
	// OutputSchema is the declared JSON Schema of structuredContent, or nil.
	OutputSchema map[string]any
	Annotations  Annotations
}

// Annotations are the behaviour hints an upstream declares for a tool.
// A nil pointer means the upstream did not say.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

// Detail selects how much of each hit Render shows.
type Detail string

const (
	DetailName    Detail = "name"    // one line per hit: the qualified name
	DetailSummary Detail = "summary" // call signature + the description's first sentence
	DetailFull    Detail = "full"    // everything, with an example call
)

// ServerInfo describes one upstream for the catalog: used for search
// results (an unavailable server's tools are marked) and for suggestions.
type ServerInfo struct {
	Name        string
	Description string // a few words of purpose, may be empty
	Available   bool   // false while the upstream is down or failed to connect
	Error       string // why it is unavailable, when it is
}

// Index is an immutable, in-memory catalog of tools from many servers: safe
// for concurrent use. Build it with New; rebuild it when tools change.
type Index struct {
	docs       []doc          // sorted by server, then tool name
	servers    []ServerInfo   // sorted by name
	serverTool map[string]int // server name → number of tools
	byName     map[string]int // qualified name and ident path → doc
	serverIDs  map[string]string
	exact      map[string][]int32 // identKey of tool names, qualified names, ident paths → docs
	lex        lexicon
}

// doc is one tool with what search and rendering derive from it.
type doc struct {
	tool      *Tool
	qname     string // "server.tool"
	ident     string // "server_ident.tool_ident"
	serverID  string // the server's script identifier
	toolID    string // the tool's script identifier within its server
	available bool
	reason    string    // why the server is unavailable
	first     string    // the description's first sentence
	nameTerms []string  // distinct words of the tool name, its namespace words left out
	nameIDF   []float32 // their idf
	nameMass  float64   // Σ nameIDF
	acts      intent    // the kinds of action the tool's name says (intent.go)
}

// New builds an immutable index. tools may come from many servers; servers
// lists every configured upstream (also those with no tools because they are
// down). A server that has tools but is missing from servers counts as
// available. Tools with the same server and name after the first are ignored.
func New(tools []Tool, servers []ServerInfo) *Index {
	ix := &Index{
		servers:    mergeServers(tools, servers),
		docs:       uniqueTools(tools),
		serverTool: make(map[string]int),
	}
	status := make(map[string]ServerInfo, len(ix.servers))
	for _, s := range ix.servers {
		status[s.Name] = s
	}
	ix.nameTools(status)
	ix.indexNames()
	ix.lex = buildLexicon(ix.docs, status)
	go wordnetOnce.Do(loadWordnet) // ready by the first search, off its path
	return ix
}

// nameTools gives every tool its qualified name, script identifiers and
// server status.
func (ix *Index) nameTools(status map[string]ServerInfo) {
	ix.serverIDs = assignIdents(serverNames(ix.servers))
	toolNames := make(map[string][]string)
	for _, d := range ix.docs {
		toolNames[d.tool.Server] = append(toolNames[d.tool.Server], d.tool.Name)
	}
	toolIDs := make(map[string]map[string]string, len(toolNames))
	for s, names := range toolNames {
		toolIDs[s] = assignIdents(names)
	}
	for i := range ix.docs {
		d := &ix.docs[i]
		t := d.tool
		d.qname = t.Server + "." + t.Name
		d.serverID, d.toolID = ix.serverIDs[t.Server], toolIDs[t.Server][t.Name]
		d.ident = d.serverID + "." + d.toolID
		d.available, d.reason = status[t.Server].Available, status[t.Server].Error
		d.first, _ = firstSentence(t.Description)
		ix.serverTool[t.Server]++
	}
}

// indexNames fills the lookups by name: qualified names and identifier
// paths for Resolve (a qualified name wins over an equal identifier path of
// another tool), and their normalised forms for exact matches in search.
func (ix *Index) indexNames() {
	ix.byName = make(map[string]int, 2*len(ix.docs))
	for i, d := range ix.docs {
		if _, dup := ix.byName[d.qname]; !dup {
			ix.byName[d.qname] = i
		}
	}
	for i, d := range ix.docs {
		if _, dup := ix.byName[d.ident]; !dup {
			ix.byName[d.ident] = i
		}
	}
	ix.exact = make(map[string][]int32, 3*len(ix.docs))
	for i, d := range ix.docs {
		for _, k := range []string{identKey(d.tool.Name), identKey(d.qname), identKey(d.ident)} {
			if l := ix.exact[k]; len(l) == 0 || l[len(l)-1] != int32(i) {
				ix.exact[k] = append(l, int32(i))
			}
		}
	}
}

// mergeServers returns the configured servers plus any server that only
// appears in tools, sorted by name, the first entry of a name winning.
func mergeServers(tools []Tool, servers []ServerInfo) []ServerInfo {
	seen := make(map[string]bool)
	var out []ServerInfo
	for _, s := range servers {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	for _, t := range tools {
		if !seen[t.Server] {
			seen[t.Server] = true
			out = append(out, ServerInfo{Name: t.Server, Available: true})
		}
	}
	slices.SortFunc(out, func(a, b ServerInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// uniqueTools copies the tools, sorted by server and name, first of each
// (server, name) pair kept.
func uniqueTools(tools []Tool) []doc {
	seen := make(map[[2]string]bool, len(tools))
	docs := make([]doc, 0, len(tools))
	for i := range tools {
		k := [2]string{tools[i].Server, tools[i].Name}
		if seen[k] {
			continue
		}
		seen[k] = true
		t := tools[i]
		docs = append(docs, doc{tool: &t})
	}
	slices.SortStableFunc(docs, func(a, b doc) int {
		if c := strings.Compare(a.tool.Server, b.tool.Server); c != 0 {
			return c
		}
		return strings.Compare(a.tool.Name, b.tool.Name)
	})
	return docs
}

func serverNames(servers []ServerInfo) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.Name
	}
	return out
}

// Len is the number of tools in the index.
func (ix *Index) Len() int { return len(ix.docs) }

// Servers lists every server, sorted by name: the configured ones and any
// other that has tools.
func (ix *Index) Servers() []ServerInfo { return slices.Clone(ix.servers) }

// ToolCount is the number of tools of a server.
func (ix *Index) ToolCount(server string) int { return ix.serverTool[server] }

// ServerIdent is the script identifier of a server ("my-server" →
// "my_server"), or "" for an unknown server.
func (ix *Index) ServerIdent(server string) string { return ix.serverIDs[server] }

// All lists every tool as a Hit with a zero score, sorted by server, then
// tool name:
// what a script prelude needs to bind tools.<server>.<tool>.
func (ix *Index) All() []Hit {
	out := make([]Hit, len(ix.docs))
	for i := range ix.docs {
		out[i] = ix.hit(i, 0)
	}
	return out
}

// Resolve finds a tool by qualified name "server.tool" or by identifier path
// "server_ident.tool_ident". Names are matched exactly; Suggest finds close
// ones.
func (ix *Index) Resolve(name string) (Hit, bool) {
	i, ok := ix.byName[name]
	if !ok {
		return Hit{}, false
	}
	return ix.hit(i, 1), true
}

func (ix *Index) hit(i int, score float64) Hit {
	d := &ix.docs[i]
	return Hit{Tool: d.tool, QName: d.qname, Ident: d.ident, Score: score}
}
