package portstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// RepositorySuite is the contract of one repository of ports.Tx, run against a store that may
// serve every other suite too (each suite works in tenants and keys of its own).
type RepositorySuite func(t *testing.T, s ports.Store)

// Repositories maps each method of ports.Tx to the contract suite of the repository it hands
// out. test/architecture fails when a method of ports.Tx has no entry, so a new repository
// cannot join the unit of work without a suite that both implementations pass.
func Repositories() map[string]RepositorySuite {
	return map[string]RepositorySuite{
		"Tenants":        TenantRepo,
		"Members":        MemberRepo,
		"APIKeys":        APIKeyRepo,
		"Idempotency":    IdempotencyRepo,
		"RelayerBudget":  RelayerBudgetRepo,
		"Handles":        HandleRepo,
		"Wallets":        WalletRepo,
		"Payments":       PaymentRepo,
		"PaymentHolds":   PaymentHoldRepo,
		"Drips":          DripRepo,
		"Ramps":          RampRepo,
		"Policies":       PolicyRepo,
		"Agents":         AgentRepo,
		"Recipients":     RecipientRepo,
		"Offramp":        OfframpRepo,
		"Claims":         ClaimRepo,
		"Cards":          CardRepo,
		"Checkouts":      CheckoutRepo,
		"Events":         EventRepo,
		"Invoices":       InvoiceRepo,
		"Treasury":       TreasuryRepo,
		"TwoFactor":      TwoFactorRepo,
		"ChainIndex":     ChainIndexRepo,
		"LedgerReports":  LedgerReportsRepo,
		"WalletActivity": WalletActivityRepo,
		"Ledger":         func(t *testing.T, s ports.Store) { LedgerStore(t, func(*testing.T) ports.Store { return s }) },
	}
}

// RunRepositories runs every repository suite against s, in name order.
func RunRepositories(t *testing.T, s ports.Store) {
	suites := Repositories()
	names := make([]string, 0, len(suites))
	for name := range suites {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) { suites[name](t, s) })
	}
}

// behaviour is one named case of a suite.
type behaviour struct {
	name string
	test func(*testing.T, ports.Store)
}

func runBehaviours(t *testing.T, s ports.Store, cases []behaviour) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.test(t, s) })
	}
}

// unit runs fn in one unit of work bounded by a deadline, failing the test on an error.
func unit(t *testing.T, s ports.Store, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := unitErr(s, fn); err != nil {
		t.Fatal(err)
	}
}

// unitErr runs fn in one unit of work bounded by a deadline and returns its error.
func unitErr(s ports.Store, fn func(ctx context.Context, tx ports.Tx) error) error {
	ctx, cancel := unitDeadline()
	defer cancel()
	return s.InTx(ctx, fn)
}

// concurrently runs fn n times at once, each in its own unit of work, and returns the errors.
func concurrently(s ports.Store, n int, fn func(ctx context.Context, tx ports.Tx, i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = unitErr(s, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, tx, i) })
		}()
	}
	wg.Wait()
	return errs
}

// suffix is a short random string that keeps a suite's slugs, hashes and handles its own.
func suffix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// newTenant stores a fresh tenant and returns it.
func newTenant(t *testing.T, s ports.Store) tenant.Tenant {
	t.Helper()
	sfx := suffix(t)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "contract-" + sfx, Name: "Contract " + sfx,
		OwnerUserID: "user_" + sfx, CreatedAt: ledgerNow()}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, tn) })
	return tn
}

// newWallet stores a wallet of the tenant in env (pending deployment, never deployed).
func newWallet(t *testing.T, s ports.Store, tenantID string, env core.Environment) wallet.Wallet {
	t.Helper()
	address := randomAddress()
	w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: tenantID, Environment: env, Name: "contract",
		Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID, Address: address,
		Owners: []wallet.Owner{{Address: address, Role: wallet.RoleAdminOwner}}, Threshold: 1,
		Status: wallet.StatusPendingDeployment, CreatedAt: ledgerNow()}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	return w
}

// ids returns the ids of rows, for comparing list orders.
func ids[T any](rows []T, id func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

// wantIDs fails when got is not want, in order.
func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wantTotal fails when a list's total is not want.
func wantTotal(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s total = %d, want %d", what, got, want)
	}
}

// noErr fails the test on err, naming what.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, fmt.Sprint(err))
	}
}

// randomAddress is a fresh 20-byte hex address.
func randomAddress() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool { return slices.Contains(list, s) }
