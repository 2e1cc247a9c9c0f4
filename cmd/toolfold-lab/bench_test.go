package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/bench"
	"github.com/toolfold/toolfold/sandbox"
)

// asCLIEnv makes the test binary act as toolfold-lab when the bench
// starts it (replay-server); TestMain checks it.
const asCLIEnv = "TOOLFOLD_TEST_AS_LAB=1"

// TestMain makes the test binary a sandbox child when the Lua runner
// re-executes it, and toolfold-lab itself when the bench starts it.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if k, v, _ := strings.Cut(asCLIEnv, "="); os.Getenv(k) == v {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchQuick runs the whole bench in quick mode against the real npm
// servers and the toolfold binary built from this clone, and checks that its figures are consistent: code mode costs
// fewer tokens than the classic way in every scenario (whose answers Run
// checks itself), toolfold's schemas cost less than the servers', every
// path was timed, the memory was read, and the outputs are well formed.
func TestBenchQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the npm reference servers; skipped in -short mode")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" { // as in e2e: CI must run it
			t.Fatal("node is not installed: the bench needs Node.js 20 or later")
		}
		t.Skip("node is not installed: the bench needs Node.js 20 or later")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	nm, err := bench.InstallNPM(ctx, "../..")
	if err != nil {
		t.Fatalf("npm servers: %v", err)
	}
	bin, err := bench.BuildToolfold(ctx, "../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	corpus, _ := filepath.Abs("../../index/testdata/search-corpus")
	rep, err := bench.Run(ctx, bench.Options{NPM: nm, Corpus: corpus, Quick: true, Toolfold: bin, LabEnv: []string{asCLIEnv}, Progress: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Schemas) != 2 {
		t.Fatalf("schema rows: %+v", rep.Schemas)
	}
	for _, s := range rep.Schemas {
		if s.Tools == 0 || s.ProxyTokens <= 0 || s.ProxyTokens >= s.DirectTokens {
			t.Errorf("schemas %s: %d tools, direct %d tokens, toolfold %d", s.Setup, s.Tools, s.DirectTokens, s.ProxyTokens)
		}
	}
	if a := rep.Advert; a.ServerLine <= 0 || a.Search <= a.ServerLine || a.Total <= a.Search+a.Run {
		t.Errorf("advertised breakdown inconsistent: %+v", a)
	}
	if len(rep.Scenarios) != 4 {
		t.Fatalf("scenarios: %+v", rep.Scenarios)
	}
	for _, s := range rep.Scenarios {
		c, k := s.Classic, s.Code
		if k.Total() >= c.Total() || c.Results <= 0 || k.Results <= 0 || k.Requests <= 0 {
			t.Errorf("%s: classic %+v (%d), code mode %+v (%d)", s.Name, c, c.Total(), k, k.Total())
		}
		if k.ClientCalls != 2 || k.ToolCalls < 1 || c.ClientCalls < 1 {
			t.Errorf("%s: calls: classic %d, code mode %d client + %d in the script", s.Name, c.ClientCalls, k.ClientCalls, k.ToolCalls)
		}
		if c.Schemas != rep.Schemas[0].DirectTokens || k.Schemas != rep.Schemas[0].ProxyTokens {
			t.Errorf("%s: schemas counted %d / %d, want the sample config's %d / %d", s.Name, c.Schemas, k.Schemas, rep.Schemas[0].DirectTokens, rep.Schemas[0].ProxyTokens)
		}
	}
	var measured, slots int
	for _, l := range rep.Latency {
		switch {
		case l.Note != "":
			slots++
		case l.P50 <= 0 || l.P99 < l.P50:
			t.Errorf("latency %s: p50 %v, p99 %v", l.Name, l.P50, l.P99)
		default:
			measured++
		}
	}
	if measured < 6 {
		t.Errorf("only %d latency rows measured: %+v", measured, rep.Latency)
	}
	var runs int
	for _, o := range rep.Overhead {
		if o.Note == "" {
			runs++
			if o.Search <= 0 || o.Run <= 0 {
				t.Errorf("run overhead %s: %+v", o.Language, o)
			}
		}
	}
	if runs == 0 {
		t.Errorf("no run overhead row measured: %+v", rep.Overhead)
	}
	if o := rep.OneCall; o == nil || o.Direct <= 0 || o.Script <= 0 {
		t.Errorf("one call through a script: %+v", o)
	}
	for _, f := range rep.FirstRun {
		if f.Note == "" && (f.First <= 0 || f.Bare <= 0 || f.Search <= 0) {
			t.Errorf("first run: %+v", f)
		}
	}
	if len(rep.Memory) != 2 {
		t.Fatalf("memory rows: %+v", rep.Memory)
	}
	for _, m := range rep.Memory {
		if m.RSS <= 0 || m.HWM < m.RSS || m.Tools == 0 {
			t.Errorf("memory with %d upstreams: %+v", m.Upstreams, m)
		}
	}

	var out bytes.Buffer
	rep.Print(&out)
	for _, want := range []string{"o200k_base", "QUICK RUN", "### 1.", "### 2.", "### 3.", "Document copy:", "| 2 |", "run_script p50"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed report lacks %q:\n%s", want, out.String())
		}
	}
	var svg bytes.Buffer
	if err := rep.SVG(&svg); err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(svg.Bytes()); err != nil {
		t.Errorf("SVG: %v\n%s", err, svg.String())
	}
	if n := strings.Count(svg.String(), "<rect "); n != 2+2*6+1 {
		t.Errorf("SVG has %d rects, want a background, 2 legend swatches and 12 bars", n)
	}
}

// logWriter sends the bench's progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func TestBenchBadFlags(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, "bench", "--npm", dir)
	if code != exitUsage || !strings.Contains(errs, "no @modelcontextprotocol/server-everything") {
		t.Errorf("bench --npm EMPTY: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "replay-server", "--corpus", dir)
	if code != exitUsage || !strings.Contains(errs, "no <server>.json files") {
		t.Errorf("replay-server --corpus EMPTY: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "replay-server", "--corpus", "../../index/testdata/search-corpus", "--slice", "3/3")
	if code != exitUsage || !strings.Contains(errs, "want K/N") {
		t.Errorf("replay-server --slice 3/3: %d %q", code, errs)
	}
}

// TestToolfoldBinary: bench measures the binary --toolfold names, which
// must exist, else one it builds from a clone, which the directory must be.
func TestToolfoldBinary(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := toolfoldBinary(context.Background(), filepath.Join(dir, "none"), io.Discard); err == nil || !strings.Contains(err.Error(), "--toolfold") {
		t.Errorf("--toolfold MISSING: %v", err)
	}
	bin, cleanup, err := toolfoldBinary(context.Background(), os.Args[0], io.Discard)
	if err != nil || bin != os.Args[0] {
		t.Errorf("--toolfold %s: %q %v", os.Args[0], bin, err)
	} else {
		cleanup()
	}
	if _, err := bench.BuildToolfold(context.Background(), dir, dir); err == nil || !strings.Contains(err.Error(), "not a toolfold clone") {
		t.Errorf("BuildToolfold outside a clone: %v", err)
	}
}
