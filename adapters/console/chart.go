package console

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"corridor/ports"
)

// Chart geometry, in SVG user units; the SVG scales to its container.
const (
	chartW, chartH           = 720.0, 240.0
	chartLeft, chartRight    = 90.0, 12.0
	chartTop, chartBottom    = 12.0, 28.0
	chartPlotW, chartPlotH   = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
	chartEmptyMessageYOffset = 4.0
)

// balanceChart draws an account's posted balance after each transfer of st as a step line:
// x is the posting's order (evenly spaced), y the balance, with the range's ends labelled.
// Everything is computed here; the template inserts the finished SVG, which carries no
// script and no style attribute (the CSP forbids inline styles).
func balanceChart(st ports.Statement) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="Posted balance over time" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH)
	fmt.Fprintf(&b, `<rect class="chart-bg" x="%.0f" y="%.0f" width="%.0f" height="%.0f"/>`, chartLeft, chartTop, chartPlotW, chartPlotH)
	lines := st.Lines
	if len(lines) == 0 {
		fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f">No postings yet</text></svg>`, chartLeft+chartPlotW/2-50, chartTop+chartPlotH/2+chartEmptyMessageYOffset)
		return template.HTML(b.String()) //nolint:gosec // numbers and fixed text only
	}
	values := make([]int64, 0, len(lines)+1)
	values = append(values, st.Opening.Posted)
	for _, l := range lines {
		values = append(values, l.After.Posted)
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	lo = min(lo, 0)
	if hi == lo {
		hi = lo + 1
	}
	x := func(i int) float64 {
		return chartLeft + chartPlotW*float64(i)/float64(len(values)-1+boolInt(len(values) == 1))
	}
	y := func(v int64) float64 { return chartTop + chartPlotH*(1-float64(v-lo)/float64(hi-lo)) }
	var pts strings.Builder
	for i, v := range values {
		if i > 0 {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(i), y(values[i-1]))
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", x(i), y(v))
	}
	fmt.Fprintf(&b, `<line class="chart-zero" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/>`, chartLeft, chartLeft+chartPlotW, y(0), y(0))
	fmt.Fprintf(&b, `<polyline class="chart-line" points="%s"/>`, strings.TrimSpace(pts.String()))
	label := func(v int64, yy float64) {
		fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, yy+4, html.EscapeString(usd(v)))
	}
	label(hi, y(hi))
	label(lo, y(lo))
	first, last := lines[0].Transfer.CreatedAt.UTC(), lines[len(lines)-1].Transfer.CreatedAt.UTC()
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f">%s</text>`, chartLeft, chartH-8, first.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f" text-anchor="end">%s</text>`, chartLeft+chartPlotW, chartH-8, last.Format("2006-01-02 15:04 UTC"))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and formatted amounts only, escaped
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
