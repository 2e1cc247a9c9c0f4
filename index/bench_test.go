package index

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// benchQueries are the dev queries' texts: typical search_tools input.
func benchQueries(b *testing.B) []string {
	b.Helper()
	qs, err := LoadQueries(filepath.Join(corpusDir, "queries-dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Query
	}
	return append(out, "read_file", "fs.readFile", "github.create_issue", "kubectl_logs", "screnshot")
}

// replicate copies the corpus n times, renaming the servers of copy i
// "<server>-r<i>", so an index holds about n × 1,815 tools.
func replicate(tools []Tool, servers []ServerInfo, n int) ([]Tool, []ServerInfo) {
	var ts []Tool
	var ss []ServerInfo
	for i := range n {
		suffix := ""
		if i > 0 {
			suffix = fmt.Sprintf("-r%d", i)
		}
		for _, t := range tools {
			t.Server += suffix
			ts = append(ts, t)
		}
		for _, s := range servers {
			s.Name += suffix
			ss = append(ss, s)
		}
	}
	return ts, ss
}

func benchSearch(b *testing.B, ix *Index, mb float64) {
	qs := benchQueries(b)
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		ix.Search(qs[i%len(qs)], SearchOptions{})
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(mb, "index-MB")
}

// buildMeasured builds an index and measures the heap it retains, in MB.
// The WordNet relations, loaded once per process, are loaded first: they
// are not the index's (BenchmarkWordnetLoad measures them).
func buildMeasured(tools []Tool, servers []ServerInfo) (*Index, float64) {
	related("")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := New(tools, servers)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return ix, float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
}

// bothSignals runs a benchmark with issue 14's second-round signals off
// ("before") and as shipped, side by side in one run.
func bothSignals(b *testing.B, fn func(b *testing.B)) {
	for _, v := range []struct {
		name string
		s    signalSettings
	}{{"before", signalsOff}, {"shipped", signalsOn}} {
		b.Run(v.name, func(b *testing.B) {
			defer v.s.apply()()
			fn(b)
		})
	}
}

// BenchmarkSearch searches the 1,815-tool corpus with the dev queries.
func BenchmarkSearch(b *testing.B) {
	tools, servers, err := LoadCorpus(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	bothSignals(b, func(b *testing.B) {
		ix, mb := buildMeasured(tools, servers)
		benchSearch(b, ix, mb)
	})
}

// BenchmarkSearch20k searches the corpus replicated to 19,965 tools.
func BenchmarkSearch20k(b *testing.B) {
	tools, servers, err := LoadCorpus(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	ts, ss := replicate(tools, servers, 11)
	bothSignals(b, func(b *testing.B) {
		ix, mb := buildMeasured(ts, ss)
		b.Logf("%d tools", ix.Len())
		benchSearch(b, ix, mb)
	})
}

// BenchmarkBuild indexes the 1,815-tool corpus. The WordNet relations,
// loaded once per process, are loaded first.
func BenchmarkBuild(b *testing.B) {
	tools, servers, err := LoadCorpus(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	related("")
	bothSignals(b, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			New(tools, servers)
		}
	})
}

// BenchmarkRender renders ten hits at each detail level.
func BenchmarkRender(b *testing.B) {
	ix := loadTestCorpus(b)
	hits := ix.Search("create an issue", SearchOptions{})
	for _, d := range []Detail{DetailName, DetailSummary, DetailFull} {
		b.Run(string(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ix.Render("create an issue", hits, d, "lua")
			}
		})
	}
}

// BenchmarkSearchLearned is BenchmarkSearch with learning on: a Usage
// filled to its default bound by pairing the dev queries' words with tools.
func BenchmarkSearchLearned(b *testing.B) {
	ix := loadTestCorpus(b)
	qs, err := LoadQueries(filepath.Join(corpusDir, "queries-dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	u := NewUsage(0)
	all := ix.All()
	for i := 0; u.Len() < DefaultUsagePairs && i < 50*len(qs); i++ {
		u.Record(ix, qs[i%len(qs)].Query, all[(i*7919)%len(all)].QName)
	}
	b.Logf("%d learned pairs", u.Len())
	queries := benchQueries(b)
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		ix.Search(queries[i%len(queries)], SearchOptions{Usage: u})
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkWordnetLoad decodes the embedded WordNet relations, as the
// first index of a process does in the background, and reports the heap
// they hold.
func BenchmarkWordnetLoad(b *testing.B) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		loadWordnet()
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
	b.ReportMetric(float64(len(wordnetIdx)), "words")
}
