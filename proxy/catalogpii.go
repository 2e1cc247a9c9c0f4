package proxy

import (
	"encoding/json"

	"github.com/toolfold/toolfold/index"
)

// The catalog is shared by every client session, but what upstreams
// wrote about their tools may hold personal data ("contact the owner at
// erin@example.com"), which each session must see as its own tokens. The
// catalog's texts are scanned once, as it is built (catalogPII); a search
// tokenizes what it rendered (piiState.searchText, tokenizer.go), with the
// session's vault, only when it
// shows a tool or server whose text held something, or nothing matched
// (the answer then quotes the query): most searches cost nothing more.

// catalogPII records which tools and servers of one catalog an upstream
// described with personal data.
type catalogPII struct {
	ix      *index.Index
	tools   map[string]bool // server + "\x00" + tool
	servers bool            // a server's description or error holds some
}

// scanCatalog scans the texts of ix's tools and servers with s's
// detector; nil when PII rewriting is off.
func (s *piiState) scanCatalog(ix *index.Index, tools []index.Tool, servers []index.ServerInfo) *catalogPII {
	if s == nil {
		return nil
	}
	c := &catalogPII{ix: ix, tools: make(map[string]bool)}
	for _, t := range tools {
		text := t.Title + "\n" + t.Description
		for _, sch := range []map[string]any{t.InputSchema, t.OutputSchema} {
			if sch != nil {
				b, _ := json.Marshal(sch)
				text += "\n" + string(b)
			}
		}
		if len(s.det.Find(text, nil)) > 0 {
			c.tools[t.Server+"\x00"+t.Name] = true
		}
	}
	for _, sv := range servers {
		if len(s.det.Find(sv.Description+"\n"+sv.Error, nil)) > 0 {
			c.servers = true
		}
	}
	return c
}

// mayHold reports whether text rendered from ix for hits may show
// personal data: it does unless c, a scan of ix itself, found none in
// what hits show.
func (c *catalogPII) mayHold(ix *index.Index, hits []index.Hit) bool {
	if c == nil || c.ix != ix || c.servers || len(hits) == 0 {
		return true
	}
	for _, h := range hits {
		if c.tools[h.Tool.Server+"\x00"+h.Tool.Name] {
			return true
		}
	}
	return false
}
