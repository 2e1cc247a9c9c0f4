package index

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// Query is one labelled query of a search evaluation set, one JSON object
// per line of a queries.jsonl file. A tool's id is "server/tool".
type Query struct {
	ID       string     `json:"id"`
	Query    string     `json:"query"`
	Relevant []string   `json:"relevant"`       // every acceptable tool
	Need     [][]string `json:"need,omitempty"` // steps of a multi-step task, each with its acceptable tools
	Tags     []string   `json:"tags"`
	Source   string     `json:"source"`
}

// LoadQueries reads a queries.jsonl file.
func LoadQueries(path string) ([]Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load queries: %w", err)
	}
	var qs []Query
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var q Query
		if err := json.Unmarshal([]byte(text), &q); err != nil {
			return nil, fmt.Errorf("load queries: %s:%d: %w", path, line, err)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

// Metrics are a ranking's quality over a set of queries, in percent, as the
// corpus's score_search.py defines them:
//   - R@k: the share of a query's steps with an acceptable tool in the top k
//     (a query without Need has one step: any of Relevant);
//   - C@10: 1 when every step is covered in the top 10;
//   - MRR: the reciprocal rank of the first relevant tool (0 beyond rank 100);
//   - nDCG@10: binary-gain nDCG over Relevant, ideal DCG from min(|Relevant|, 10) hits.
type Metrics struct {
	N                             int
	R1, R5, R10, C10, MRR, NDCG10 float64
}

// QueryResult is one query's ranking and its metrics.
type QueryResult struct {
	Query   Query
	Ranked  []string // tool ids, best first, at most 100
	Metrics Metrics  // N is 1
}

// Evaluation is the outcome of Evaluate.
type Evaluation struct {
	Results []QueryResult
	Subsets []Subset // all, by source, then by tag (tags with at least 4 queries)
	Dropped int      // queries naming no tool of the index for one of their steps
}

// Subset is the mean metrics over a subset of the queries.
type Subset struct {
	Name string
	Metrics
}

const evalDepth = 100

// Evaluate ranks every query with the index and scores the rankings. Tools
// the index lacks are removed from a query's labels, and a query left
// without an acceptable tool for one of its steps is dropped, as
// score_search.py does.
func Evaluate(ix *Index, queries []Query) *Evaluation {
	known := make(map[string]bool, len(ix.docs))
	for _, d := range ix.docs {
		known[d.tool.Server+"/"+d.tool.Name] = true
	}
	ev := &Evaluation{}
	for _, q := range queries {
		q, ok := restrict(q, known)
		if !ok {
			ev.Dropped++
			continue
		}
		var ranked []string
		for _, h := range ix.search(q.Query, "", evalDepth, nil) {
			ranked = append(ranked, h.Tool.Server+"/"+h.Tool.Name)
		}
		ev.Results = append(ev.Results, QueryResult{Query: q, Ranked: ranked, Metrics: scoreQuery(q, ranked)})
	}
	ev.Subsets = subsets(ev.Results)
	return ev
}

// restrict removes unknown tools from a query's labels.
func restrict(q Query, known map[string]bool) (Query, bool) {
	keep := func(ids []string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !known[id] })
	}
	q.Relevant = keep(q.Relevant)
	if q.Need != nil {
		need := make([][]string, len(q.Need))
		for i, g := range q.Need {
			if need[i] = keep(g); len(need[i]) == 0 {
				return q, false
			}
		}
		q.Need = need
	}
	return q, len(q.Relevant) > 0
}

// scoreQuery computes the metrics of one ranking, as fractions (not percent).
func scoreQuery(q Query, ranked []string) Metrics {
	if len(ranked) > evalDepth {
		ranked = ranked[:evalDepth]
	}
	need := q.Need
	if len(need) == 0 {
		need = [][]string{q.Relevant}
	}
	covered := func(k int) float64 {
		top := ranked[:min(k, len(ranked))]
		n := 0
		for _, g := range need {
			if slices.ContainsFunc(top, func(id string) bool { return slices.Contains(g, id) }) {
				n++
			}
		}
		return float64(n) / float64(len(need))
	}
	m := Metrics{N: 1, R1: covered(1), R5: covered(5), R10: covered(10)}
	if m.R10 == 1 {
		m.C10 = 1
	}
	rel := make(map[string]bool)
	for _, id := range q.Relevant {
		rel[id] = true
	}
	for i, id := range ranked {
		if rel[id] {
			m.MRR = 1 / float64(i+1)
			break
		}
	}
	var dcg, idcg float64
	for i, id := range ranked[:min(10, len(ranked))] {
		if rel[id] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(len(rel), 10) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		m.NDCG10 = dcg / idcg
	}
	return m
}

// subsets averages the metrics by subset, in score_search.py's order.
func subsets(rs []QueryResult) []Subset {
	groups := make(map[string][]Metrics)
	for _, r := range rs {
		for _, g := range groupsOf(r.Query) {
			groups[g] = append(groups[g], r.Metrics)
		}
	}
	order := []string{"all", "source:handwritten", "source:mcptoolbench", "source:livemcpbench", "tag:multi"}
	var tags []string
	for g, ms := range groups {
		if strings.HasPrefix(g, "tag:") && !slices.Contains(order, g) && len(ms) >= 4 {
			tags = append(tags, g)
		}
	}
	slices.Sort(tags)
	var out []Subset
	for _, g := range append(order, tags...) {
		if ms, ok := groups[g]; ok {
			out = append(out, Subset{Name: g, Metrics: mean(ms)})
		}
	}
	return out
}

// benchmarkTags are the tags that name the public benchmark a query comes
// from; a query with none is hand-written.
var benchmarkTags = []string{"mcptoolbench", "livemcpbench"}

func groupsOf(q Query) []string {
	src := "source:handwritten"
	for _, b := range benchmarkTags {
		if slices.Contains(q.Tags, b) {
			src = "source:" + b
			break
		}
	}
	g := []string{"all", src}
	for _, t := range q.Tags {
		g = append(g, "tag:"+t)
	}
	return g
}

func mean(ms []Metrics) Metrics {
	var s Metrics
	for _, m := range ms {
		s.R1 += m.R1
		s.R5 += m.R5
		s.R10 += m.R10
		s.C10 += m.C10
		s.MRR += m.MRR
		s.NDCG10 += m.NDCG10
	}
	n := float64(len(ms))
	return Metrics{N: len(ms), R1: 100 * s.R1 / n, R5: 100 * s.R5 / n, R10: 100 * s.R10 / n,
		C10: 100 * s.C10 / n, MRR: 100 * s.MRR / n, NDCG10: 100 * s.NDCG10 / n}
}

// Subset returns the metrics of a named subset ("all", "tag:hard", ...).
func (ev *Evaluation) Subset(name string) (Metrics, bool) {
	for _, s := range ev.Subsets {
		if s.Name == name {
			return s.Metrics, true
		}
	}
	return Metrics{}, false
}

// Table formats the subsets as the Markdown table score_search.py prints.
func (ev *Evaluation) Table() string {
	var b strings.Builder
	b.WriteString("| subset | n | R@1 | R@5 | R@10 | C@10 | MRR | nDCG@10 |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range ev.Subsets {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
			s.Name, s.N, s.R1, s.R5, s.R10, s.C10, s.MRR, s.NDCG10)
	}
	return b.String()
}
