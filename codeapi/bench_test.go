package codeapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/tokens"
)

const corpusDir = "../index/testdata/search-corpus"

// corpusIndex is the 124-server search corpus, or n tools made from it
// (servers copied under new names until there are n).
func corpusIndex(b testing.TB, n int) *index.Index {
	b.Helper()
	tools, servers, err := index.LoadCorpus(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	if n <= 0 {
		return index.New(tools, servers)
	}
	var out []index.Tool
	var infos []index.ServerInfo
	for copyN := 0; len(out) < n; copyN++ {
		for _, t := range tools {
			if len(out) == n {
				break
			}
			t.Server = fmt.Sprintf("%s_%d", t.Server, copyN)
			out = append(out, t)
		}
		for _, s := range servers {
			s.Name = fmt.Sprintf("%s_%d", s.Name, copyN)
			infos = append(infos, s)
		}
	}
	return index.New(out, infos)
}

// benchWrite measures FromIndex and Write of ix's tree.
func benchWrite(b *testing.B, ix *index.Index) {
	var st Stats
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		var err error
		if st, err = Write(dir, FromIndex(ix, "skills", nil), nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(st.Bytes)/(1<<20), "MiB")
}

// BenchmarkWriteCorpus: the tree of the 124-server corpus (1,815 tools).
func BenchmarkWriteCorpus(b *testing.B) { benchWrite(b, corpusIndex(b, 0)) }

// BenchmarkWrite20000: a tree of 20,000 tools.
func BenchmarkWrite20000(b *testing.B) { benchWrite(b, corpusIndex(b, 20000)) }

// BenchmarkBrowseCost: the tokens a model reads to reach a query's tool
// by browsing (servers/README.md, the server's README.md, the tool's .py)
// against search_tools (the query at summary detail, then the tool at
// full detail), over the corpus's held-out queries; medians and means.
func BenchmarkBrowseCost(b *testing.B) {
	ix := corpusIndex(b, 0)
	dir := filepath.Join(b.TempDir(), "tree")
	if _, err := Write(dir, FromIndex(ix, "skills", nil), nil); err != nil {
		b.Fatal(err)
	}
	top := tokens.Count(readB(b, filepath.Join(dir, "servers", "README.md")))
	var browse, serverReadme, file, search, full []int
	for _, q := range holdout(b) {
		h, ok := ix.Resolve(strings.Replace(q.Relevant[0], "/", ".", 1))
		if !ok {
			continue
		}
		sid, tid, _ := strings.Cut(h.Ident, ".")
		sr := tokens.Count(readB(b, filepath.Join(dir, "servers", sid, "README.md")))
		tf := tokens.Count(readB(b, filepath.Join(dir, "servers", sid, pyName(tid)+".py")))
		serverReadme, file = append(serverReadme, sr), append(file, tf)
		browse = append(browse, top+sr+tf)
		s := tokens.Count(ix.Render(q.Query, ix.Search(q.Query, index.SearchOptions{}), index.DetailSummary, "python"))
		f := tokens.Count(ix.Render(h.QName, []index.Hit{h}, index.DetailFull, "python"))
		search, full = append(search, s), append(full, f)
	}
	for b.Loop() {
	}
	b.ReportMetric(float64(top), "top-README-tokens")
	b.ReportMetric(median(serverReadme), "server-README-tokens")
	b.ReportMetric(median(file), "tool-file-tokens")
	b.ReportMetric(median(browse), "browse-tokens")
	b.ReportMetric(median(search), "search-summary-tokens")
	b.ReportMetric(median(full), "search-full-tokens")
	sum := make([]int, len(search))
	for i := range search {
		sum[i] = search[i] + full[i]
	}
	b.ReportMetric(median(sum), "search-total-tokens")
	b.ReportMetric(float64(len(browse)), "queries")
}

type query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

func holdout(b testing.TB) []query {
	f, err := os.Open(filepath.Join(corpusDir, "queries-holdout.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []query
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q query
		if json.Unmarshal(sc.Bytes(), &q) == nil && len(q.Relevant) > 0 {
			out = append(out, q)
		}
	}
	return out
}

func readB(b testing.TB, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return float64(s[len(s)/2])
}
