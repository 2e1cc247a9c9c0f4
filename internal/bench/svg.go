package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// chartRow is one pair of bars.
type chartRow struct {
	label          string
	direct, folded int
}

// SVG writes a chart of the token comparison: for each schema setup and
// scenario, the direct/classic tokens and toolfold's, on a log scale (the
// two differ by up to three orders of magnitude).
func (r *Report) SVG(w io.Writer) error {
	var rows []chartRow
	for _, s := range r.Schemas {
		rows = append(rows, chartRow{fmt.Sprintf("tool schemas, %d servers", s.Servers), s.DirectTokens, s.ProxyTokens})
	}
	for _, s := range r.Scenarios {
		label, _, _ := strings.Cut(s.Name, " (")
		rows = append(rows, chartRow{label, s.Classic.Total(), s.Code.Total()})
	}
	const (
		width, left, right = 860, 250, 120
		top, rowH, barH    = 64, 54, 18
	)
	height := top + rowH*len(rows) + 48
	maxV, minV := 10, math.MaxInt
	for _, row := range rows {
		maxV = max(maxV, row.direct, row.folded)
		minV = min(minV, max(row.direct, 1), max(row.folded, 1))
	}
	// The axis runs from the decade below the smallest value to the one
	// above the largest; bars start at its left end.
	lo := math.Floor(math.Log10(float64(minV)))
	if lo > 0 {
		lo-- // leave the smallest bar some length
	}
	decades := math.Ceil(math.Log10(float64(maxV))) - lo
	scale := func(v int) float64 {
		x := math.Log10(float64(max(v, 1))) - lo
		return float64(width-left-right) * max(x, 0) / decades
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui,-apple-system,Segoe UI,sans-serif" font-size="13">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="16" font-weight="600" fill="#111">Context tokens: direct / classic vs through toolfold (log scale, %s)</text>`+"\n", html.EscapeString(r.Encoding))
	fmt.Fprintf(&b, `<rect x="16" y="38" width="12" height="12" fill="#c0392b"/><text x="34" y="49" fill="#333">direct tools, every result in context</text>`+"\n")
	fmt.Fprintf(&b, `<rect x="300" y="38" width="12" height="12" fill="#2471a3"/><text x="318" y="49" fill="#333">toolfold: search_tools + run_script</text>`+"\n")
	for d := 0; d <= int(decades); d++ {
		x := float64(left) + float64(width-left-right)*float64(d)/decades
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, top-4, x, top+rowH*len(rows))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#666" text-anchor="middle" font-size="11">%s</text>`+"\n", x, top+rowH*len(rows)+16, num(int(math.Pow(10, lo+float64(d)))))
	}
	for i, row := range rows {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#111" text-anchor="end">%s</text>`+"\n", left-10, y+barH+6, html.EscapeString(row.label))
		for j, v := range []int{row.direct, row.folded} {
			color := "#c0392b"
			if j == 1 {
				color = "#2471a3"
			}
			by := y + j*(barH+2)
			wv := scale(v)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, by, wv, barH, color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#333" font-size="12">%s</text>`+"\n", float64(left)+wv+6, by+barH-5, num(v))
		}
		if row.direct > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1e8449" font-weight="600" text-anchor="end">−%s</text>`+"\n", width-12, y+barH+6, pct(1-float64(row.folded)/float64(row.direct)))
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666" text-anchor="middle" font-size="11">tokens entering the model's context (log scale)</text>`+"\n", left+(width-left-right)/2, top+rowH*len(rows)+34)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
