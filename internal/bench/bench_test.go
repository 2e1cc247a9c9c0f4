package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/tokens"
)

// The end-to-end test of Run is TestBenchQuick in cmd/toolfold: it needs a
// binary that is toolfold. These test the pieces that need no servers.

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
