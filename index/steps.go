package index

import (
	"slices"
	"strings"
)

// A query can name several steps: "find the file and then email it". Each
// step wants its own tool, and the whole query's ranking favours tools
// that match words of both steps, which are rarely the tools for either.
// Search then ranks the whole query and each step alone and fuses the
// rankings by reciprocal rank (Cormack, Clarke and Büttcher, 2009): a
// tool's score is Σ weight / (rrfK + rank) over the rankings, so the best
// tool of each step rises into the first few hits.

// Settings of the fusion: the whole query's ranking weighs 1, each
// step's stepWeight; rankings are stepDepth deep.
var (
	rrfK          = 10.0
	stepWeight    = 0.5
	stepDepth     = 30
	stepGuarantee = true
	// stepSure is the score a step's best tool needs to be placed among
	// the first hits: a step that no tool matches well ("tell me why")
	// names no tool, and its best guess would push out a good hit.
	stepSure = 0.6
	// stepCommas also splits at a comma followed by a verb that names a
	// kind of action (intent.go).
	stepCommas = true
)

// stepBreaks are the words and marks that start a new step, longest
// first: sequencing words and clause separators of English.
var stepBreaks = []string{
	"and after that", "and afterwards", "and finally", "and then", "after that", "afterwards",
	"followed by", "then", "finally", "and also", "as well as", "and",
}

// splitSteps splits a query into its steps at stepBreaks, keeping only
// parts with at least two words; it returns one part for a query of one
// step. Quoted strings and what follows a payload colon are not split.
func splitSteps(q string) []string {
	chunks := splitQuery(q)
	end := payloadStart(chunks)
	var steps []string
	var cur []string
	cut := func() {
		if len(cur) > 0 {
			steps = append(steps, strings.Join(cur, " "))
		}
		cur = cur[:0]
	}
	for i := 0; i < len(chunks); {
		if i < end {
			if n, mark := breakAt(chunks[i:end]); n > 0 {
				if mark {
					cur = append(cur, strings.TrimRight(chunks[i], ",;.?!"))
				}
				cut()
				i += n
				continue
			}
		}
		cur = append(cur, chunks[i])
		i++
	}
	cut()
	steps = slices.DeleteFunc(steps, func(s string) bool { return len(strings.Fields(s)) < 2 })
	if len(steps) < 2 {
		return []string{q}
	}
	return steps
}

// breakAt is the number of chunks a step break at the start of chunks
// takes, 0 when there is none; mark reports a chunk that ends its step
// with a mark (";"), whose words belong to the step.
func breakAt(chunks []string) (n int, mark bool) {
	c := chunks[0]
	if strings.HasSuffix(c, ";") {
		return 1, true
	}
	if stepCommas && strings.HasSuffix(c, ",") && len(chunks) > 1 {
		if w := strings.ToLower(strings.Trim(chunks[1], ",.;:!?")); isASCIIWord(w) && wordIntent(stem(w), false) != 0 {
			return 1, true // "find the file, email it": a comma before a verb
		}
	}
	for _, b := range stepBreaks {
		ws := strings.Fields(b)
		if len(ws) > len(chunks) {
			continue
		}
		ok := true
		for j, w := range ws {
			if strings.ToLower(strings.Trim(chunks[j], ",.")) != w {
				ok = false
				break
			}
		}
		if ok {
			return len(ws), false
		}
	}
	return 0, false
}

// rankSteps ranks the whole query and each step, and fuses the rankings.
func (ix *Index) rankSteps(query string, steps []string, server string, limit int, u *Usage) []candidate {
	depth := max(limit, stepDepth)
	fused := make(map[int32]float64)
	add := func(cands []candidate, w float64) {
		for r, c := range cands {
			fused[c.doc] += w / (rrfK + float64(r+1))
		}
	}
	add(ix.rank(query, server, depth, u), 1)
	var firsts []int32 // each step's best tool
	for _, s := range steps {
		cands := ix.rank(s, server, depth, u)
		add(cands, stepWeight)
		if len(cands) > 0 && cands[0].score >= stepSure && !slices.Contains(firsts, cands[0].doc) {
			firsts = append(firsts, cands[0].doc)
		}
	}
	top := topK{k: max(limit, len(fused))}
	for d, s := range fused {
		top.push(candidate{doc: d, score: s})
	}
	out := top.sorted()
	if stepGuarantee {
		out = promote(out, firsts, limit)
	}
	return out[:min(limit, len(out))]
}

// promote moves each step's best tool that ranks beyond the first
// len(firsts)+1 hits to just after the first hit, keeping the order of the
// rest, so every step has a tool among the first few hits.
func promote(cands []candidate, firsts []int32, limit int) []candidate {
	reach := min(len(firsts)+1, limit)
	var moved []candidate
	rest := cands[:0:0]
	for i, c := range cands {
		if i >= reach && slices.Contains(firsts, c.doc) {
			moved = append(moved, c)
			continue
		}
		rest = append(rest, c)
	}
	if len(moved) == 0 || len(rest) == 0 {
		return cands
	}
	out := append([]candidate{rest[0]}, moved...)
	return append(out, rest[1:]...)
}
