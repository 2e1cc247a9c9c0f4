package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/tokens"
)

// The end-to-end test of Run is TestBenchQuick in cmd/toolfold-lab: it
// needs a toolfold binary and one that is the lab. These test the pieces
// that need no servers.

func TestLatencyRowPercentiles(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	r := latencyRow("x", "100", d)
	if r.P50 != 50*time.Millisecond || r.P99 != 99*time.Millisecond {
		t.Errorf("p50 %v p99 %v, want 50ms 99ms", r.P50, r.P99)
	}
	r = latencyRow("x", "3", []time.Duration{3, 1, 2})
	if r.P50 != 2 || r.P99 != 3 {
		t.Errorf("3 samples: p50 %v p99 %v", r.P50, r.P99)
	}
}

func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDocumentSize(t *testing.T) {
	doc := document(5000)
	n := tokens.Count(doc)
	if n < 5000 || n > 5200 {
		t.Errorf("document(5000) has %d tokens", n)
	}
	if document(5000) != doc {
		t.Error("document is not deterministic")
	}
}

func TestCostTotal(t *testing.T) {
	c := Cost{Schemas: 300, Requests: 100, Results: 50}
	if c.Total() != 450 {
		t.Errorf("Total = %d", c.Total())
	}
	s := Scenario{Classic: Cost{Results: 1000}, Code: Cost{Results: 5}}
	if s.Saved() != 0.995 {
		t.Errorf("Saved = %v", s.Saved())
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	rep := &Report{Encoding: "o200k_base",
		Schemas:   []SchemaRow{{Setup: "a <b> & c", Servers: 3, DirectTokens: 6800, ProxyTokens: 340}},
		Scenarios: []Scenario{{Name: "copy", Classic: Cost{Results: 150000}, Code: Cost{Results: 600}}},
	}
	var b bytes.Buffer
	if err := rep.SVG(&b); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&b)
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
	var out strings.Builder
	rep.Print(&out)
	if !strings.Contains(out.String(), "| copy |") || !strings.Contains(out.String(), "99.60%") {
		t.Errorf("report:\n%s", out.String())
	}
}

// TestMeasureInterleaved: every case is called once per round, and each
// row after the first gets what it added to the first, round by round.
func TestMeasureInterleaved(t *testing.T) {
	var calls []int
	mk := func(i int, extra time.Duration) latencyCase {
		return latencyCase{name: fmt.Sprint(i), n: 20, call: func(context.Context) error {
			calls = append(calls, i)
			time.Sleep(extra)
			return nil
		}}
	}
	rows, err := measureInterleaved(context.Background(), []latencyCase{mk(0, 0), mk(1, 3*time.Millisecond), mk(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	calls = calls[3:] // the warm-up
	if len(calls) != 60 {
		t.Fatalf("%d calls, want 60", len(calls))
	}
	for r := 0; r < 60; r += 3 {
		round := slices.Clone(calls[r : r+3])
		slices.Sort(round)
		if !slices.Equal(round, []int{0, 1, 2}) {
			t.Fatalf("round %d called %v", r/3, calls[r:r+3])
		}
	}
	if rows[0].AddedTo != "" || rows[1].AddedTo != "0" || rows[1].Added < 3*time.Millisecond || rows[1].Samples != "20" {
		t.Errorf("rows: %+v", rows)
	}
}
