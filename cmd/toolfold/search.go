package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/sandbox"
)

func cmdSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("search", stderr, "warn")
	detail := fs.String("detail", "summary", "name, summary or full")
	limit := fs.Int("limit", 10, "number of results (1-50)")
	server := fs.String("server", "", "only this upstream's tools")
	lang := fs.String("language", "", "script language of signatures: "+sandbox.LanguageList()+" (default: run_script's)")
	refresh := fs.Bool("refresh", false, "connect to every upstream instead of answering from the catalog cache, and update the cache")
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) == 0 {
		return fail(stderr, "search needs a query, e.g. toolfold search \"read a file\"")
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	var p *proxy.Proxy
	if servers, listed, ok := cachedServers(cfg); ok && !*refresh {
		log.Info("answering from the catalog cache; --refresh reconnects", "listed", listed.Local().Format(time.DateTime))
		cached := *cfg
		cached.Upstreams = nil
		p = proxy.New(&cached, &proxy.Options{Logger: log, Version: buildVersion(), Runners: searchRunners(), Providers: []proxy.Provider{cachedProvider(servers)}})
	} else {
		// A terminal user asked for a result: wait for every upstream's
		// connect_timeout, as check does, rather than serve's startup bound.
		p = startProxy(ctx, cfg, log, 24*time.Hour, nil)
		saveCatalog(cfg, p.Status(), log)
	}
	defer p.Close()
	text, err := p.SearchLanguage(strings.Join(pos, " "), *detail, *limit, *server, *lang)
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, text)
	return exitOK
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("run", stderr, "warn")
	lang := fs.String("language", "", "script language (default: from the file extension, else lua)")
	pos, err := cliflags.Parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return fail(stderr, "run needs one script file (or - for stdin), e.g. toolfold run count.lua")
	}
	var code []byte
	if pos[0] == "-" {
		code, err = io.ReadAll(io.LimitReader(os.Stdin, maxScript+1))
		if err == nil && len(code) > maxScript {
			return fail(stderr, "the script on stdin is over %d MiB", maxScript>>20)
		}
	} else {
		code, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if *lang == "" {
		*lang = languageOf(pos[0])
	}
	log, cfg, ok := c.setup(stderr)
	if !ok {
		return exitUsage
	}
	p, ctx, done, err := startRunProxy(ctx, cfg, log)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer done()
	text, failed, err := p.RunScript(ctx, string(code), *lang)
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitUsage
	}
	fmt.Fprintln(stdout, text)
	if failed {
		return exitFailed
	}
	return exitOK
}

// startRunProxy starts the proxy of a run from the command line (toolfold
// run, toolfold skills run), and the context to run in. An upstream whose
// tools are in the catalog cache (listed with its present settings) starts
// on the script's first call to one of its tools, so a run starts only the
// upstreams it calls; one that is not cached yet starts at once and is
// waited for, since its tool names are not known otherwise, and its list
// is then cached for the next run. The run writes the
// audit lines a served run_script writes, when the config keeps an audit;
// a call the policy asks about fails closed, saying why (noPersonInRun):
// there is no MCP client here to put the question to a person. done
// closes the proxy, then the audit.
func startRunProxy(ctx context.Context, cfg *config.Config, log *slog.Logger) (*proxy.Proxy, context.Context, func(), error) {
	aud, err := audit.Open(cfg.Audit, &audit.Options{Logger: log.With("component", "audit")})
	if err != nil {
		return nil, nil, nil, err
	}
	p := startProxy(ctx, cfg, log, 24*time.Hour, &proxy.Options{Audit: aud, CachedTools: cachedTools(cfg), StartOnCall: true})
	done := func() {
		saveCatalog(cfg, p.Status(), log) // those the run started, for the next run
		p.Close()
		if aud != nil {
			aud.Close() // after the proxy: the run is recorded
		}
	}
	return p, proxy.NoPersonToAsk(ctx, noPersonInRun), done, nil
}

// noPersonInRun is why a run from the command line refuses a call the
// policy asks about.
const noPersonInRun = "a run from the command line has no MCP client to ask through; to be asked, make the call from a client of toolfold serve"

// maxScript bounds a script read from stdin.
const maxScript = 4 << 20

// languageOf is the language of a script file, by its extension
// (sandbox.Language.Extensions); Lua when none matches.
func languageOf(path string) string {
	if l, ok := sandbox.LanguageOfFile(path); ok {
		return l.Name
	}
	return "lua"
}

// searchRunners stand for run_script's languages when search answers from
// the cache: Lua, built in and first, is run_script's default language
// whatever else is offered, so no interpreter need be probed (--language
// still renders any language).
func searchRunners() []sandbox.Runner {
	return []sandbox.Runner{sandbox.NewLua(nil)}
}
