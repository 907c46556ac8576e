package console

import (
	"fmt"
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/ports"
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

// volumeChart draws each day's money in (above the middle line) and out (below it) as bars,
// scaled to the window's largest movement, with the first and last days and the largest
// amount labelled. A window without movement says so.
func volumeChart(v finance.VolumeView) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="volume-chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="Money in and out per day" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH)
	fmt.Fprintf(&b, `<rect class="chart-bg" x="%.0f" y="%.0f" width="%.0f" height="%.0f"/>`, chartLeft, chartTop, chartPlotW, chartPlotH)
	var peak int64
	for _, d := range v.Days {
		peak = max(peak, d.In, d.Out)
	}
	mid := chartTop + chartPlotH/2
	if peak == 0 || len(v.Days) == 0 {
		fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f">No money moved in these %d days</text></svg>`, chartLeft+chartPlotW/2-90, mid+chartEmptyMessageYOffset, len(v.Days))
		return template.HTML(b.String()) //nolint:gosec // numbers and fixed text only
	}
	slot := chartPlotW / float64(len(v.Days))
	bar := slot * 0.7
	h := func(amount int64) float64 { return (chartPlotH / 2) * float64(amount) / float64(peak) }
	for i, d := range v.Days {
		x := chartLeft + slot*float64(i) + (slot-bar)/2
		day := d.Day.Format("2006-01-02")
		if d.In > 0 {
			fmt.Fprintf(&b, `<rect class="chart-in" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s in %s (%s)</title></rect>`,
				x, mid-h(d.In), bar, h(d.In), day, html.EscapeString(usd(d.In)), transfers(d.InTransfers))
		}
		if d.Out > 0 {
			fmt.Fprintf(&b, `<rect class="chart-out" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s out %s (%s)</title></rect>`,
				x, mid, bar, h(d.Out), day, html.EscapeString(usd(d.Out)), transfers(d.OutTransfers))
		}
	}
	fmt.Fprintf(&b, `<line class="chart-zero" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/>`, chartLeft, chartLeft+chartPlotW, mid, mid)
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.1f" text-anchor="end">in %s</text>`, chartLeft-6, chartTop+10, html.EscapeString(usd(peak)))
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.1f" text-anchor="end">out %s</text>`, chartLeft-6, chartTop+chartPlotH-2, html.EscapeString(usd(peak)))
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f">%s</text>`, chartLeft, chartH-8, v.Days[0].Day.Format("2006-01-02"))
	fmt.Fprintf(&b, `<text class="chart-label" x="%.0f" y="%.0f" text-anchor="end">%s</text>`, chartLeft+chartPlotW, chartH-8, v.Days[len(v.Days)-1].Day.Format("2006-01-02"))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers, dates and formatted amounts only, escaped
}

// transfers counts transfers in words: "1 transfer", "3 transfers".
func transfers(n int) string {
	if n == 1 {
		return "1 transfer"
	}
	return strconv.Itoa(n) + " transfers"
}
