package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/internal/glob"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/proxy"
)

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"ms":    func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) },
	"clock": func(t time.Time) string { return t.Local().Format("15:04:05") },
	"count": func(n int64) string { return formatCount(n) },
	"ago":   func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"list":  func(s ...string) []string { return s },
}).ParseFS(assets, "assets/*.html"))

// view is what a page's template gets.
type view struct {
	Page      string
	CSRF      string
	Query     url.Values // the audit filter, for the event stream's URL
	Upstreams []proxy.UpstreamStatus
	Sessions  []proxy.SessionInfo
	Pins      []policy.Pin
	PinsOff   bool
	PinsErr   string
	snapshot
	Filter filter
	Chart  template.HTML
	Totals point
}

// page serves the page name.
func (d *Dashboard) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := view{Page: name, CSRF: d.csrf, snapshot: d.snapshot(), Filter: filterOf(r), Query: r.URL.Query()}
		switch name {
		case "overview":
			d.fillOverview(r.Context(), &v)
		case "audit":
			v.Records = slices.DeleteFunc(v.Records, func(rec audit.Record) bool { return !v.Filter.match(rec) })
		case "economy":
			v.Chart, v.Totals = chart(v.Economy)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := pages.ExecuteTemplate(w, "page", v); err != nil {
			d.log.Warn("dashboard: rendering "+name, "err", err)
		}
	}
}

// fillOverview reads the upstreams, sessions and pins.
func (d *Dashboard) fillOverview(ctx context.Context, v *view) {
	v.Upstreams = d.src.Status()
	v.Sessions = d.src.Sessions()
	slices.SortFunc(v.Sessions, func(a, b proxy.SessionInfo) int { return a.Started.Compare(b.Started) })
	pins := d.src.Pins()
	if pins == nil {
		v.PinsOff = true
		return
	}
	all, err := pins.List(ctx)
	if err != nil {
		v.PinsErr = err.Error()
	}
	v.Pins = all
}

// renderSection renders one live section's content.
func (d *Dashboard) renderSection(w io.Writer, section string, s snapshot) error {
	return pages.ExecuteTemplate(w, section, view{CSRF: d.csrf, snapshot: s})
}

// filter selects audit records: a glob over the tool, a session tag, a
// kind, a decision. The zero value selects all.
type filter struct {
	Tool, Session, Kind, Decision string
}

func filterOf(r *http.Request) filter {
	q := r.URL.Query()
	return filter{Tool: q.Get("tool"), Session: q.Get("session"), Kind: q.Get("kind"), Decision: q.Get("decision")}
}

func (f filter) match(r audit.Record) bool {
	switch {
	case f.Session != "" && r.Session != f.Session,
		f.Kind != "" && r.Kind != f.Kind,
		f.Decision != "" && r.Decision != f.Decision,
		f.Tool != "" && (r.Tool == "" || !glob.Match(f.Tool, r.Tool)):
		return false
	}
	return true
}

// formatCount shows n as the footer does: 1234 → "1.2k".
func formatCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// chart draws the token economy: cumulative tokens of results kept out of
// the model's context and of what went back to it, run by run, as inline
// SVG; and the totals.
func chart(pts []point) (template.HTML, point) {
	const w, h, pad = 640.0, 220.0, 30.0
	var tot point
	kept, ret := make([]int64, len(pts)+1), make([]int64, len(pts)+1) // from 0, before the first run
	for i, p := range pts {
		tot.Kept += p.Kept
		tot.Returned += p.Returned
		kept[i+1], ret[i+1] = tot.Kept, tot.Returned
	}
	top := max(tot.Kept, tot.Returned, 1)
	line := func(vals []int64) string {
		var b strings.Builder
		for i, v := range vals {
			x := pad
			if len(vals) > 1 {
				x += (w - 2*pad) * float64(i) / float64(len(vals)-1)
			}
			y := h - pad - (h-2*pad)*float64(v)/float64(top)
			fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="tokens over runs">`, w, h)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%.0f" height="%.0f" fill="#fbfbfd"/>`, w, h)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`, pad, h-pad, w-pad, h-pad)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`, pad, pad, pad, h-pad)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11">%s tokens</text>`, pad+4, pad-8, formatCount(top))
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="middle">%d runs</text>`, w/2, h-8, len(pts))
	if len(pts) > 0 {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11">%s</text>`, pad, h-8, pts[0].T.Local().Format("15:04:05"))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="end">%s</text>`, w-pad, h-8, pts[len(pts)-1].T.Local().Format("15:04:05"))
	}
	if len(pts) > 0 {
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#2a7" stroke-width="2" points="%s"/>`, line(kept))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#c52" stroke-width="2" points="%s"/>`, line(ret))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), tot // built from numbers only
}
