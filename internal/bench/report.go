package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Print writes the report as Markdown tables (docs/token-economy.md carries them as
// printed).
func (r *Report) Print(w io.Writer) {
	mode := ""
	if r.Quick {
		mode = " — QUICK RUN: small data, few samples; a smoke test, not figures"
	}
	fmt.Fprintf(w, "toolfold-lab bench, %s, %s%s; tokens counted with %s\n\n", r.Started.Format("2006-01-02 15:04 MST"), r.Elapsed, mode, r.Encoding)

	if len(r.Schemas) > 0 || r.Advert.Servers > 0 {
		fmt.Fprintf(w, "### 1. Context cost of tool schemas\n\n")
		fmt.Fprintf(w, "tools/list as the client receives it, every server's own vs toolfold's two tools.\n\n")
		fmt.Fprintln(w, "| setup | servers | tools | direct | through toolfold | saved |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|")
		for _, s := range r.Schemas {
			fmt.Fprintf(w, "| %s | %d | %s | %s tokens (%s) | %s tokens (%s) | %s |\n", s.Setup, s.Servers, num(s.Tools),
				num(s.DirectTokens), size(s.DirectBytes), num(s.ProxyTokens), size(s.ProxyBytes), pct(s.Saved()))
		}
		if a := r.Advert; a.Servers > 0 {
			verdict := "met"
			if a.Total >= a.Goal {
				verdict = "MISSED"
			}
			fmt.Fprintf(w, "\nWith all %d corpus servers behind it toolfold advertises %s tokens (goal < %s: %s). "+
				"search_tools' description is %s tokens, of which the server list is %s (%.1f per server); run_script's is %s.\n",
				a.Servers, num(a.Total), num(a.Goal), verdict, num(a.Search), num(a.ServerLine), a.PerServerShown, num(a.Run))
			fmt.Fprintf(w, "The server names alone, comma-separated, would be %s tokens, so a list of names without purposes or tool counts would cost about %s.\n",
				num(a.NamesOnly), num(a.Total-a.ServerLine+a.NamesOnly))
			fmt.Fprintf(w, "toolfold (in-process) took %s to connect the %d replayed upstreams and list their tools.\n", r.CorpusConnect.Round(10*time.Millisecond), a.Servers)
		}
	}
	if len(r.Scenarios) > 0 {
		fmt.Fprintf(w, "\n### 2. Task scenarios\n\n")
		fmt.Fprintln(w, "Tokens entering the model's context. Classic: every tool schema of the sample config, each call the model writes, each result it reads. "+
			"Code mode: toolfold's two schemas, one search_tools call and one run_script call (query, script, both answers). "+
			"Both ways really ran against the npm servers, and both answers were checked.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| task | data | classic | code mode | saved | calls (classic / code mode) |")
		fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|")
		for _, s := range r.Scenarios {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d / %d (+%d in the script) |\n", s.Name, s.Data,
				num(s.Classic.Total()), num(s.Code.Total()), pct(s.Saved()), s.Classic.ClientCalls, s.Code.ClientCalls, s.Code.ToolCalls)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| task | classic: schemas + requests + results | code mode: schemas + requests + results | checked |")
		fmt.Fprintln(w, "|---|--:|--:|---|")
		for _, s := range r.Scenarios {
			fmt.Fprintf(w, "| %s | %s + %s + %s | %s + %s + %s | %s |\n", s.Name,
				num(s.Classic.Schemas), num(s.Classic.Requests), num(s.Classic.Results),
				num(s.Code.Schemas), num(s.Code.Requests), num(s.Code.Results), s.Checked)
		}
		for _, s := range r.Scenarios {
			if strings.HasPrefix(s.Name, "copy a document") {
				verdict := "met"
				if s.Saved() < DocCopyGoal {
					verdict = "MISSED"
				}
				fmt.Fprintf(w, "\nDocument copy: %s fewer tokens (goal ≥ %s: %s).\n", pct(s.Saved()), pct(DocCopyGoal), verdict)
			}
		}
	}
	fmt.Fprintf(w, "\n### 3. Latency and memory\n")
	if len(r.Latency) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| path | samples | p50 | p99 |")
		fmt.Fprintln(w, "|---|--:|--:|--:|")
		for _, l := range r.Latency {
			if l.Note != "" {
				fmt.Fprintf(w, "| %s | – | – | – |\n", l.Name)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", l.Name, l.Samples, ms(l.P50), ms(l.P99))
		}
		fmt.Fprintf(w, "\nrun_script rows: *cold* starts the run's sandbox and interpreter (a session's first run); "+
			"*warm* uses the child toolfold started when the previous run ended (sandbox.warm, the default), "+
			"each sample %s after the previous run, as a model reads one answer before it writes the next script.\n",
			thinkTime)
		for _, l := range r.Latency {
			if l.Note != "" {
				fmt.Fprintf(w, "\nNot measured: %s: %s.\n", l.Name, l.Note)
			}
		}
		var added []string
		for _, l := range r.Latency {
			if l.AddedTo != "" {
				added = append(added, fmt.Sprintf("%s: %s", l.Name, signedMs(l.Added)))
			}
		}
		if len(added) > 0 {
			fmt.Fprintf(w, "\nThe echo-call rows were measured together, one call of each per round in a shuffled order, so that they saw the same load. "+
				"Per round, each took this much more than the direct call (median of the differences): %s.\n", strings.Join(added, "; "))
		}
	}
	r.printOverhead(w)
	if len(r.Memory) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Memory of the toolfold binary (stdio) with N replay upstreams, each serving an equal slice of the corpus "+
			"(a tool name two corpus servers share is served once per upstream), after a search and a run_script:")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| upstreams | tools | RSS | peak RSS |")
		fmt.Fprintln(w, "|--:|--:|--:|--:|")
		for _, m := range r.Memory {
			fmt.Fprintf(w, "| %d | %s | %s | %s |\n", m.Upstreams, num(m.Tools), mib(m.RSS), mib(m.HWM))
		}
	}
}

// num formats n with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func size(b int) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func pct(f float64) string {
	if f > 0.99 {
		return fmt.Sprintf("%.2f%%", 100*f)
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// signedMs is ms with its sign: +0.12 ms, −0.03 ms.
func signedMs(d time.Duration) string {
	if d < 0 {
		return "−" + ms(-d)
	}
	return "+" + ms(d)
}

// printOverhead writes the run overhead rows (overhead.go).
func (r *Report) printOverhead(w io.Writer) {
	if len(r.Overhead) > 0 {
		fmt.Fprintf(w, "\nA trivial run_script against a search_tools call (one MCP round trip), the toolfold binary over stdio in front of the npm memory server, "+
			"one session, each call %s after the previous one, the calls of a round in a shuffled order; *added* is the median over the rounds of the run minus that round's search:\n\n", thinkTime)
		fmt.Fprintln(w, "| language | rounds | search_tools p50 | run_script p50 | added | goal |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|---|")
		for _, o := range r.Overhead {
			if o.Note != "" {
				fmt.Fprintf(w, "| %s | – | – | – | – | not measured: %s |\n", o.Language, o.Note)
				continue
			}
			goal := "–"
			if g, ok := OverheadGoals[o.Language]; ok {
				verdict := "met"
				if o.Added > g {
					verdict = "MISSED"
				}
				goal = fmt.Sprintf("≤ %s: %s", signedMs(g), verdict)
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", o.Language, o.Samples, ms(o.Search), ms(o.Run), signedMs(o.Added), goal)
		}
	}
	if o := r.OneCall; o != nil {
		verdict := "met"
		if o.Added > OneCallGoal {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "\nOne tool call (memory's search_nodes, a small answer) from a warm Lua script through the toolfold binary, against the same call made directly by a client of the server, %d rounds alternated: "+
			"p50 %s against %s direct, added %s (goal ≤ %s: %s).\n", o.Samples, ms(o.Script), ms(o.Direct), signedMs(o.Added), signedMs(OneCallGoal), verdict)
	}
	for _, f := range r.FirstRun {
		if f.Note != "" {
			fmt.Fprintf(w, "\nA fresh session's first %s run: not measured: %s.\n", f.Language, f.Note)
			continue
		}
		verdict := "met"
		if f.First > f.Bare+f.Search {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "\nA fresh session's first %s run (%d sessions, each searched %s after it connected and ran %s after that search), alternated with starting the bare interpreter (`-I -S -c 1`) %s after the session ended: "+
			"p50 %s against %s bare + %s search = %s (goal: no slower: %s).\n",
			f.Language, f.Samples, sessionSettle, thinkTime, sessionSettle, ms(f.First), ms(f.Bare), ms(f.Search), ms(f.Bare+f.Search), verdict)
	}
}
