package console

import (
	"fmt"
	"html/template"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// funcs are the helpers templates call.
var funcs = template.FuncMap{
	"when": when,
	// latencyMs is a request log entry's latency in milliseconds.
	"latencyMs": func(micros int64) float64 { return float64(micros) / 1000 },
	"usd":       usd,
	// usdCap is an agent's cap: "no cap" when unset.
	"usdCap": func(v *int64) string {
		if v == nil {
			return "no cap"
		}
		return fixed(big.NewInt(*v))
	},
	"units": units,
	"assetAmount": func(a wallet.Asset, n *big.Int) string {
		if n == nil {
			return "—"
		}
		return fixedDecimals(n, int(a.Decimals()))
	},
	"short": short,
	"join":  func(s []string) string { return strings.Join(s, ", ") },
	"lower": strings.ToLower,
	"envOf": func(e core.Environment) string { return e.KeyLabel() },
	"driftClass": func(d *big.Int) string {
		switch {
		case d == nil:
			return "unknown"
		case d.Sign() == 0:
			return "zero"
		}
		return "drift"
	},
}

// when renders an instant as <time datetime=…> in UTC; console.js rewrites it into the
// viewer's time zone. A nil or zero time is a dash.
func when(v any) template.HTML {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case *time.Time:
		if x != nil {
			t = *x
		}
	}
	if t.IsZero() {
		return "—"
	}
	t = t.UTC()
	return template.HTML(`<time datetime="` + t.Format(time.RFC3339) + `">` + t.Format("2006-01-02 15:04:05") + ` UTC</time>`) //nolint:gosec // a formatted time, no user text
}

// usd formats base units (6 decimals) with all six decimals, so amounts line up in columns.
func usd(v any) string {
	switch x := v.(type) {
	case int64:
		return fixed(big.NewInt(x))
	case int:
		return fixed(big.NewInt(int64(x)))
	case *big.Int:
		if x == nil {
			return "—"
		}
		return fixed(x)
	}
	return fmt.Sprint(v)
}

func fixed(n *big.Int) string { return fixedDecimals(n, core.USDCDecimals) }

// fixedDecimals writes n base units with exactly decimals digits after the point.
func fixedDecimals(n *big.Int, decimals int) string {
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	for len(digits) <= decimals {
		digits = "0" + digits
	}
	cut := len(digits) - decimals
	out := digits[:cut] + "." + digits[cut:]
	if neg {
		out = "-" + out
	}
	return out
}

// units is a base-unit amount as an integer string.
func units(v int64) string { return strconv.FormatInt(v, 10) }

// short abbreviates a long hash or address for a table cell (the full value is the title).
func short(s string) string {
	if len(s) <= 18 {
		return s
	}
	return s[:10] + "…" + s[len(s)-6:]
}

// defaultTake is the page size of every console list.
const defaultTake = 25

// pager is one list's paging: skip/take from the query, links keep the other parameters.
type pager struct {
	Skip, Take, Total int
	path              string
	query             url.Values
}

func pageOf(c *fiber.Ctx) (ports.Page, *pager) {
	skip, _ := strconv.Atoi(c.Query("skip"))
	take, _ := strconv.Atoi(c.Query("take"))
	if skip < 0 || skip > ports.MaxSkip {
		skip = 0
	}
	if take <= 0 || take > 100 {
		take = defaultTake
	}
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if key := string(k); key != "skip" && key != "take" {
			q.Add(key, string(v))
		}
	})
	return ports.Page{Skip: skip, Take: take}, &pager{Skip: skip, Take: take, path: c.Path(), query: q}
}

func (p *pager) link(skip int) string {
	q := url.Values{}
	for k, v := range p.query {
		q[k] = v
	}
	q.Set("skip", strconv.Itoa(skip))
	q.Set("take", strconv.Itoa(p.Take))
	return p.path + "?" + q.Encode()
}

// From and To are the 1-based range shown; Prev and Next are links ("" at either end).
func (p *pager) From() int {
	if p.Total == 0 {
		return 0
	}
	return p.Skip + 1
}
func (p *pager) To() int { return min(p.Skip+p.Take, p.Total) }
func (p *pager) Prev() string {
	if p.Skip == 0 {
		return ""
	}
	return p.link(max(0, p.Skip-p.Take))
}
func (p *pager) Next() string {
	if p.Skip+p.Take >= p.Total {
		return ""
	}
	return p.link(p.Skip + p.Take)
}
