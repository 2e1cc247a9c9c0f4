package proxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/config"
)

// TestServerLineStaysWithinBudget: search_tools' description names a few
// servers with their purpose, and a catalog of hundreds by name only, cut
// with a count of the rest, so its cost stays bounded.
func TestServerLineStaysWithinBudget(t *testing.T) {
	line := func(n int, desc string) string {
		var ups []config.Upstream
		for i := range n {
			ups = append(ups, config.Upstream{
				Name: fmt.Sprintf("server-number-%03d", i), Description: desc, Transport: "http",
				URL: "http://127.0.0.1:1/mcp", ConnectTimeout: time.Second, CallTimeout: time.Second,
			})
		}
		p := New(testConfig(ups...), nil) // never started: every upstream is still connecting
		t.Cleanup(p.Close)
		return p.serverLine()
	}
	cases := []struct {
		n          int
		want, miss string
	}{
		{3, "server-number-002 (reads the weather; connecting)", ""},
		{60, "server-number-059 (connecting)", "reads the weather"},
		{120, "server-number-119", "(connecting)"},
		{400, " more (search_tools finds them all)", "server-number-399"},
	}
	for _, c := range cases {
		got := line(c.n, "reads the weather")
		if len(got) > serverLineBudget {
			t.Errorf("%d servers: %d bytes, over the %d budget", c.n, len(got), serverLineBudget)
		}
		if !strings.Contains(got, c.want) || (c.miss != "" && strings.Contains(got, c.miss)) {
			t.Errorf("%d servers: want %q and not %q in\n%s", c.n, c.want, c.miss, got)
		}
	}
}
