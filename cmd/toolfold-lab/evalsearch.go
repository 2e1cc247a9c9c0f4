package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/cliflags"
)

// cmdEvalSearch measures search quality on a labelled corpus: a directory
// of tools/<server>.json and query sets queries-<set>.jsonl
// (index/testdata/search-corpus has both; its QUERY-SETS.md says which
// sets are held out); --set all prints a row per set. With --lines it
// instead serves score_search.py's --cmd-lines protocol: a query per input
// line, a JSON array of "server/tool" ids per output line, so the ranking
// can be scored by an independent scorer.
func cmdEvalSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, _ := newFlags("eval-search", stderr, "warn")
	corpus := fs.String("corpus", "index/testdata/search-corpus", "directory holding tools/<server>.json")
	queries := fs.String("queries", "", "queries JSONL (default: CORPUS/queries-dev.jsonl)")
	set := fs.String("set", "", "the query set CORPUS/queries-NAME.jsonl, by subset and tag; all: a row per set")
	lines := fs.Bool("lines", false, "read queries from stdin, one per line; print ranked ids as JSON arrays")
	split := fs.Bool("split", false, "also print a table for each half of the queries, even and odd ids (to check a change helps both)")
	if _, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	}
	tools, servers, err := index.LoadCorpus(*corpus)
	if err != nil {
		return fail(stderr, "load corpus: %v", err)
	}
	ix := index.New(tools, servers)
	if *lines {
		return serveLines(ix, stdin, stdout, stderr)
	}
	switch *set {
	case "":
	case "all":
		return evalSets(ix, *corpus, stdout, stderr)
	default:
		*queries = filepath.Join(*corpus, "queries-"+*set+".jsonl")
	}
	if *queries == "" {
		*queries = *corpus + "/queries-dev.jsonl"
	}
	qs, err := index.LoadQueries(*queries)
	if err != nil {
		return fail(stderr, "load queries: %v", err)
	}
	fmt.Fprintf(stdout, "corpus: %d tools from %d servers; %d queries\n\n", ix.Len(), len(ix.Servers()), len(qs))
	fmt.Fprint(stdout, index.Evaluate(ix, qs).Table())
	if *split {
		for _, h := range []struct {
			name string
			rem  int
		}{{"even", 0}, {"odd", 1}} {
			fmt.Fprintf(stdout, "\n%s ids:\n\n", h.name)
			fmt.Fprint(stdout, index.Evaluate(ix, halfOf(qs, h.rem)).Table())
		}
	}
	return exitOK
}

// evalSets prints one row of figures for each query set of a corpus
// (queries-<set>.jsonl): held-out sets are read by these figures alone.
func evalSets(ix *index.Index, corpus string, stdout, stderr io.Writer) int {
	files, _ := filepath.Glob(filepath.Join(corpus, "queries-*.jsonl"))
	if len(files) == 0 {
		return fail(stderr, "no queries-<set>.jsonl in %s", corpus)
	}
	fmt.Fprintf(stdout, "corpus: %d tools from %d servers\n\n", ix.Len(), len(ix.Servers()))
	fmt.Fprintln(stdout, "| set | n | R@1 | R@5 | R@10 | MRR | hard n | hard R@5 |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, f := range files {
		qs, err := index.LoadQueries(f)
		if err != nil {
			return fail(stderr, "load queries: %v", err)
		}
		ev := index.Evaluate(ix, qs)
		all, _ := ev.Subset("all")
		hard, ok := ev.Subset("tag:hard")
		hardR5 := "-"
		if ok {
			hardR5 = fmt.Sprintf("%.1f", hard.R5)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "queries-"), ".jsonl")
		fmt.Fprintf(stdout, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %d | %s |\n",
			name, all.N, all.R1, all.R5, all.R10, all.MRR, hard.N, hardR5)
	}
	return exitOK
}

// serveLines answers score_search.py's --cmd-lines protocol (cmdEvalSearch).
func serveLines(ix *index.Index, stdin io.Reader, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	w := bufio.NewWriter(stdout)
	for sc.Scan() {
		ids := []string{}
		for _, h := range ix.Search(sc.Text(), index.SearchOptions{Limit: 50}) {
			ids = append(ids, h.Tool.Server+"/"+h.Tool.Name)
		}
		b, _ := json.Marshal(ids)
		w.Write(b)
		w.WriteByte('\n')
		w.Flush()
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "toolfold-lab eval-search:", strings.TrimSpace(err.Error()))
		return exitFailed
	}
	return exitOK
}

// halfOf keeps the queries whose id ends in a number with remainder rem
// modulo 2 ("q304" is even).
func halfOf(qs []index.Query, rem int) []index.Query {
	var out []index.Query
	for _, q := range qs {
		digits := strings.TrimLeftFunc(q.ID, func(r rune) bool { return r < '0' || r > '9' })
		if n, err := strconv.Atoi(digits); err == nil && n%2 == rem {
			out = append(out, q)
		}
	}
	return out
}
