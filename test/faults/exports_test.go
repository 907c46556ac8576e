package faults

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// CSV exports are read and rendered in memory, so the exports in flight are bounded, per
// tenant and in all (EXPORTS_PER_TENANT, EXPORTS_CONCURRENT): one past either limit answers
// 429 RATE_LIMITED with Retry-After before anything is read, and runs once a slot is free.
// Without the bound, 800 concurrent exports of a 10 000-row page took the server to 3.4 GB
// (docs/performance.md). The database is paused (the fault proxy holds its bytes) while the
// exports that hold the slots wait on it.
func TestExports_ConcurrentCSVBounded(t *testing.T) {
	env, proxy := proxiedServer(t, func(c *wiring.Config) {
		c.Exports = http.ExportLimits{PerTenant: 1, Total: 2}
	})
	tenants := []*harness.Tenant{env.NewTenant(t), env.NewTenant(t), env.NewTenant(t)}
	csv := func(ten *harness.Tenant) *harness.Client { return as(t, env, ten).With("Accept", "text/csv") }
	before := csv(tenants[0]).Get("/v1/balance-transactions").Expect(t, 200).Body

	for _, c := range []struct {
		name    string
		holders []*harness.Tenant
		over    *harness.Tenant
	}{
		{"one tenant's second export", tenants[:1], tenants[0]},
		{"a third export in the process", tenants[:2], tenants[2]},
	} {
		for _, ten := range tenants {
			csv(ten).Get("/v1/balance-transactions").Expect(t, 200) // each key in the service's cache
		}
		proxy.Pause()
		answers := make([]*harness.Response, len(c.holders))
		var wg sync.WaitGroup
		for i, ten := range c.holders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = csv(ten).Get("/v1/balance-transactions")
			}()
		}
		time.Sleep(300 * time.Millisecond) // the holders have their slots and wait on the database
		r := csv(c.over).Get("/v1/balance-transactions")
		proxy.Resume()
		wg.Wait()
		r.ExpectError(t, 429, "RATE_LIMITED")
		if r.Header.Get("Retry-After") != "2" {
			t.Errorf("%s: Retry-After %q, want 2", c.name, r.Header.Get("Retry-After"))
		}
		for _, a := range answers {
			a.Expect(t, 200)
		}
	}
	// The slots are given back: the same export runs, byte for byte the same; JSON is never
	// counted.
	if after := csv(tenants[0]).Get("/v1/balance-transactions").Expect(t, 200).Body; string(after) != string(before) {
		t.Errorf("the export changed: %q, then %q", before, after)
	}
	as(t, env, tenants[0]).Get("/v1/balance-transactions").Expect(t, 200)
}

// TestExports_ConsoleDownloadsShareTheBound: the console's CSV downloads (the journal, the
// checkouts) read and render up to 10 000 rows in memory as the API's exports do, so they count
// against the same bound: with EXPORTS_PER_TENANT=1, a console download and an API export of
// one tenant never run at once; the one that finds the slot taken answers 429 RATE_LIMITED
// with Retry-After. Latency on the database keeps each export in flight long enough to meet.
func TestExports_ConsoleDownloadsShareTheBound(t *testing.T) {
	env, proxy := proxiedServer(t, func(c *wiring.Config) {
		c.Exports = http.ExportLimits{PerTenant: 1, Total: 8}
	})
	ten := env.NewTenant(t)
	for _, amount := range []string{"1", "2.5", "3"} {
		as(t, env, ten).Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amount}).Expect(t, 201)
	}
	api := as(t, env, ten).With("Accept", "text/csv")
	v := env.ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	for _, path := range []string{"/console/entries.csv", "/console/checkouts.csv"} {
		api.Get("/v1/ledger/entries").Expect(t, 200)
		proxy.SetLatency(20 * time.Millisecond)
		refused := false
		for round := 0; round < 10 && !refused; round++ {
			var page *harness.ConsolePage
			var r *harness.Response
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); page = v.Get(path) }()
			go func() { defer wg.Done(); r = api.Get("/v1/ledger/entries") }()
			wg.Wait()
			switch page.Status {
			case 200:
			case 429:
				if page.Header.Get("Retry-After") != "2" || !strings.Contains(page.Body, "RATE_LIMITED") {
					t.Fatalf("%s refused: Retry-After %q\n%s", path, page.Header.Get("Retry-After"), page.Body)
				}
				refused = true
			default:
				t.Fatalf("%s: %d\n%s", path, page.Status, page.Body)
			}
			if r.Status == 429 {
				r.ExpectError(t, 429, "RATE_LIMITED")
				refused = true
			} else {
				r.Expect(t, 200)
			}
		}
		proxy.SetLatency(0)
		if !refused {
			t.Fatalf("%s and an API export of one tenant ran at once 10 times with EXPORTS_PER_TENANT=1: the console's downloads are not counted", path)
		}
		// The slots are given back.
		if p := v.Get(path); p.Status != 200 {
			t.Fatalf("%s after the exports: %d", path, p.Status)
		}
		api.Get("/v1/ledger/entries").Expect(t, 200)
	}
}
