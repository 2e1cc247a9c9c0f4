package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/replay"
	"github.com/toolfold/toolfold/internal/tokens"
)

// SchemaRow is the context cost of tools/list for one setup: every
// server's own list as a client loads it directly, vs toolfold's.
type SchemaRow struct {
	Setup        string
	Servers      int
	Tools        int
	DirectBytes  int
	DirectTokens int
	ProxyBytes   int
	ProxyTokens  int
}

// Saved is the fraction of tokens toolfold saves.
func (r SchemaRow) Saved() float64 { return 1 - float64(r.ProxyTokens)/float64(r.DirectTokens) }

// Advertised breaks down toolfold's own tools/list with every corpus
// server behind it, against the goal.
type Advertised struct {
	Servers        int
	Total          int // tokens of tools/list through toolfold
	Search, Run    int // tokens of each tool's description
	ServerLine     int // tokens of the server list inside search_tools' description
	Goal           int
	PerServerShown float64 // tokens of the server list per server
	NamesOnly      int     // tokens of the server names alone, comma-separated: the list's floor
}

// AdvertGoal is issue 8's bound on the advertised cost with 124 servers.
const AdvertGoal = 1000

// listCost is tools/list's result as the client receives it, in bytes and
// tokens.
func listCost(tools []*mcp.Tool) (int, int) {
	b, _ := json.Marshal(&mcp.ListToolsResult{Tools: tools})
	return len(b), tokens.Count(string(b))
}

func (e *env) sampleSchemas(ctx context.Context, rep *Report) error {
	row := SchemaRow{Setup: "sample config (everything, filesystem, memory)", Servers: len(e.sample)}
	for _, u := range e.sample {
		ts, err := e.direct[u.Name].listTools(ctx)
		if err != nil {
			return err
		}
		b, n := listCost(ts)
		row.Tools += len(ts)
		row.DirectBytes += b
		row.DirectTokens += n
	}
	ts, err := e.pc.listTools(ctx)
	if err != nil {
		return err
	}
	row.ProxyBytes, row.ProxyTokens = listCost(ts)
	rep.Schemas = append(rep.Schemas, row)
	return nil
}

// corpus measures the schema cost of the 124 corpus servers (each its own
// upstream, replayed over HTTP) and, while toolfold has them, the search
// latency over their 1,815 tools.
func (e *env) corpus(ctx context.Context, rep *Report) error {
	servers, _, err := replay.Load(e.opts.Corpus)
	if err != nil {
		return err
	}
	if e.opts.Quick {
		// Connecting 124 upstreams takes toolfold seconds of CPU (the
		// catalog is rebuilt on every connect); a smoke run needs fewer.
		servers = replay.Slice(servers, 0, 10)
	}
	base, stop, err := serveReplay(servers)
	if err != nil {
		return err
	}
	defer stop()
	row := SchemaRow{Setup: fmt.Sprintf("search corpus (%d servers, replayed)", len(servers)), Servers: len(servers)}
	var ups []upstream
	for _, s := range servers {
		u := upstream{Name: s.Name, URL: base + "/" + s.Name + "/mcp"}
		ups = append(ups, u)
		c, err := dial(ctx, u)
		if err != nil {
			return err
		}
		ts, err := c.listTools(ctx)
		c.Close()
		if err != nil {
			return err
		}
		b, n := listCost(ts)
		row.Tools += len(ts)
		row.DirectBytes += b
		row.DirectTokens += n
	}
	e.progress("corpus: %d servers listed directly", len(servers))
	cfg := filepath.Join(e.work, "corpus.yaml")
	if err := writeConfig(cfg, ups); err != nil {
		return err
	}
	start := time.Now()
	p, pc, err := e.startProxy(ctx, cfg, len(ups))
	if err != nil {
		return err
	}
	defer p.Close()
	defer pc.Close()
	rep.CorpusConnect = time.Since(start)
	e.progress("corpus: toolfold connected to all %d in %s", len(servers), rep.CorpusConnect.Round(time.Millisecond))
	ts, err := pc.listTools(ctx)
	if err != nil {
		return err
	}
	row.ProxyBytes, row.ProxyTokens = listCost(ts)
	rep.Schemas = append(rep.Schemas, row)

	adv := Advertised{Servers: len(servers), Total: row.ProxyTokens, Goal: AdvertGoal}
	for _, t := range ts {
		n := tokens.Count(t.Description)
		switch t.Name {
		case "search_tools":
			adv.Search = n
			if _, after, ok := strings.Cut(t.Description, "Servers: "); ok {
				line, _, _ := strings.Cut(after, ". detail:")
				adv.ServerLine = tokens.Count(line)
			}
		case "run_script":
			adv.Run = n
		}
	}
	adv.PerServerShown = float64(adv.ServerLine) / float64(len(servers))
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	adv.NamesOnly = tokens.Count(strings.Join(names, ", "))
	rep.Advert = adv

	queries, err := devQueries(e.opts.Corpus)
	if err != nil {
		return err
	}
	if e.opts.Quick && len(queries) > 20 {
		queries = queries[:20]
	}
	var d []time.Duration
	for range 2 { // the first pass warms caches; both count
		for _, q := range queries {
			start := time.Now()
			if _, err := p.Search(q, "", 0, ""); err != nil {
				return fmt.Errorf("search %q: %w", q, err)
			}
			d = append(d, time.Since(start))
		}
	}
	rep.Latency = append(rep.Latency, latencyRow("search_tools, 1,815 tools (in-process)", fmt.Sprintf("%d dev queries ×2", len(queries)), d))
	return nil
}

// devQueries reads the corpus's labelled queries (the "query" field of
// each line of queries-dev.jsonl).
func devQueries(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, "queries-dev.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("search queries: %w (pass the corpus directory with --corpus)", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var q struct{ Query string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("queries-dev.jsonl: %w", err)
		}
		if q.Query != "" {
			out = append(out, q.Query)
		}
	}
	return out, sc.Err()
}
