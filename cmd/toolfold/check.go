package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/internal/tokens"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/workspace"
)

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("check", stderr, "error")
	if _, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	ts, err := resolveTelemetry(cfg.Telemetry, os.Getenv)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	fmt.Fprintf(stdout, "config %s: ok (%s format, %s)\n", c.config, cfg.Format, plural(len(cfg.Upstreams), "upstream"))
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stdout, "  warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "pii: %s\n", piiStatus(cfg.PII))
	fmt.Fprintf(stdout, "telemetry: %s\n", ts)
	fmt.Fprintf(stdout, "workspaces: %s\n", workspaceStatus(cfg.Sandbox))
	fmt.Fprintf(stdout, "warm runs: %s\n", warmStatus(cfg.Sandbox))
	st, err := openStore(cfg, log)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if st != nil {
		defer st.Close()
	}
	storeLine, storeOK := storeStatus(ctx, cfg, st)
	fmt.Fprintf(stdout, "store: %s\n", storeLine)
	skillsLine, skillsBad := skillsStatus(ctx, cfg)
	fmt.Fprintf(stdout, "skills: %s\n", skillsLine)
	fmt.Fprintf(stdout, "policy: %s\n", policyStatus(cfg.Policy))
	fmt.Fprintf(stdout, "audit: %s\n", auditStatus(cfg.Audit))
	pinsLine, pinsBad := pinsStatus(ctx, cfg.Policy, st)
	fmt.Fprintf(stdout, "tool pins: %s\n\n", pinsLine)
	// check waits for every upstream's full connect timeout: it is the
	// command for finding out why one is slow or failing.
	runners, langs := languages(cfg, log, false)
	p := startProxy(ctx, cfg, log, 24*time.Hour, &proxy.Options{Runners: runners, Store: st})
	defer p.Close()
	saveCatalog(cfg, p.Status(), log)

	failed := printUpstreams(stdout, p.Status()) || !storeOK
	fmt.Fprintln(stdout)
	printOAuth(stdout, cfg)
	printAdvertised(stdout, p)
	failed = printLanguages(stdout, langs) || failed
	failed = printSandbox(ctx, stdout, p) || failed || skillsBad || pinsBad
	if failed {
		return exitFailed
	}
	return exitOK
}

// printUpstreams prints one row per upstream and reports whether any failed.
func printUpstreams(w io.Writer, st []proxy.UpstreamStatus) (failed bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tPROTOCOL\tTOOLS\tSCHEMA BYTES\tSCHEMA TOKENS\tSTATUS")
	var totalTools, totalBytes, totalTokens int
	for _, s := range st {
		status := s.State
		if s.State == proxy.StateReady {
			status = fmt.Sprintf("ok (%s)", s.ConnectTime.Round(time.Millisecond))
		} else if s.Err != "" {
			status = s.State + ": " + s.Err
		}
		if s.State != proxy.StateReady && s.State != proxy.StateDisabled {
			failed = true
		}
		b, _ := json.Marshal(s.Tools)
		if s.Tools == nil {
			b = nil
		}
		n := tokens.Count(string(b))
		totalTools += len(s.Tools)
		totalBytes += len(b)
		totalTokens += n
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", s.Name, s.Transport, dash(s.Protocol), len(s.Tools), len(b), n, status)
	}
	fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%d\t\n", totalTools, totalBytes, totalTokens)
	tw.Flush()
	return failed
}

// printAdvertised shows what a client loads through toolfold instead.
func printAdvertised(w io.Writer, p *proxy.Proxy) {
	var direct int
	for _, s := range p.Status() {
		b, _ := json.Marshal(s.Tools)
		if s.Tools != nil {
			direct += tokens.Count(string(b))
		}
	}
	adv := p.AdvertisedTools()
	b, _ := json.Marshal(adv)
	n := tokens.Count(string(b))
	var names []string
	for _, t := range adv {
		names = append(names, t.Name)
	}
	fmt.Fprintf(w, "toolfold advertises %d tools (%s): %d bytes, %d tokens", len(adv), strings.Join(names, ", "), len(b), n)
	if direct > 0 {
		fmt.Fprintf(w, " instead of %d tokens (%.1f%% less)", direct, 100*(1-float64(n)/float64(direct)))
	}
	fmt.Fprintf(w, "; tokens counted with %s\n", tokens.Encoding)
}

// printSandbox runs a trivial script in each language to show it works.
func printSandbox(ctx context.Context, w io.Writer, p *proxy.Proxy) (failed bool) {
	fmt.Fprintf(w, "%s\n%s\n", sandboxLine(), sandbox.ExeNote())
	for _, lang := range p.Languages() {
		start := time.Now()
		text, bad, err := p.RunScript(ctx, "return 1 + 1", lang)
		switch {
		case err != nil:
			fmt.Fprintf(w, "sandbox %s: error: %v\n", lang, err)
			failed = true
		case bad:
			fmt.Fprintf(w, "sandbox %s: failed: %s\n", lang, text)
			failed = true
		default:
			fmt.Fprintf(w, "sandbox %s: ok (%s for a trivial run)\n", lang, time.Since(start).Round(time.Millisecond))
		}
	}
	return failed
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// warmStatus says whether serve starts each session's next run ahead.
func warmStatus(sb config.Sandbox) string {
	if !sb.Warm {
		return "off (sandbox.warm: false): every run starts its sandbox and interpreter"
	}
	return "on: when a run ends, serve starts the session's next run's sandbox and interpreter (sandbox.warm)"
}

// workspaceStatus says where sessions' workspaces live and whether they stay.
func workspaceStatus(sb config.Sandbox) string {
	size := fmt.Sprintf("%d MiB", sb.WorkspaceBytes>>20)
	if sb.WorkspaceBytes < 1<<20 {
		size = fmt.Sprintf("%d KiB", sb.WorkspaceBytes>>10)
	}
	_, bound := workspace.Bound()
	bound = "; " + bound + "; all together within sandbox.workspace_budget"
	if sb.WorkspaceDir == "" {
		return "temporary, one per session, removed when it ends (" + size + " each; sandbox.workspace_dir keeps stdio's)" + bound
	}
	return "stdio's kept in " + sb.WorkspaceDir + "/stdio, HTTP sessions' temporary (" + size + " each)" + bound
}
