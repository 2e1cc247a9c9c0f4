package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/internal/replay"
)

// cmdReplayServer is `toolfold-lab replay-server`: a fixture upstream
// serving recorded tool schemas from a search corpus (see package replay),
// for bench. Over stdio it serves one MCP server with
// the tools of the chosen corpus servers; with --http it serves every
// chosen server at http://ADDR/<server>/mcp and prints the address.
//
//	toolfold-lab replay-server --corpus DIR [--servers a,b | --slice K/N] [--http ADDR]
func cmdReplayServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, _ := newFlags("replay-server", stderr, "error")
	corpus := fs.String("corpus", "index/testdata/search-corpus", "search corpus directory (holding tools/<server>.json)")
	names := fs.String("servers", "", "comma-separated corpus servers to serve (default: all)")
	slice := fs.String("slice", "", "K/N: serve the K-th (0-based) of N equal slices of the corpus servers")
	addr := fs.String("http", "", "serve streamable HTTP on ADDR instead of stdio")
	if _, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	}
	files, err := replay.List(*corpus)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if *slice != "" { // read only the slice's files: a replay server starts fast
		if *names != "" {
			return fail(stderr, "--servers and --slice: pass one of them")
		}
		var k, n int
		if _, err := fmt.Sscanf(*slice, "%d/%d", &k, &n); err != nil || n <= 0 || k < 0 || k >= n {
			return fail(stderr, "--slice %q: want K/N with 0 <= K < N, e.g. 0/10", *slice)
		}
		files = files[len(files)*k/n : len(files)*(k+1)/n]
	}
	servers, _, err := replay.LoadFiles(files)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if *names != "" {
		if servers, err = replay.Pick(servers, strings.Split(*names, ",")); err != nil {
			return fail(stderr, "%v", err)
		}
	}
	if len(servers) == 0 {
		return fail(stderr, "no corpus servers selected")
	}
	if *addr == "" {
		if err := replay.ServeStdio(ctx, servers); err != nil {
			fmt.Fprintf(stderr, "toolfold-lab: replay: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(stderr, "listen %s: %v", *addr, err)
	}
	srv := &http.Server{Handler: replay.Handler(servers), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintf(stderr, "toolfold-lab: replay: %v\n", err)
		return exitFailed
	}
	return exitOK
}
