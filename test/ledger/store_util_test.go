package ledger

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// usd is n whole dollars in base units.
func usd(n int64) int64 { return n * 1_000_000 }

func store() *postgres.Store { return env().Service.Store }

// newStore is a store over db that, on a Citus coordinator, knows it (ForCitus), as the
// service's does: its locking reads then stay on one shard per home.
func newStore(db *bun.DB) *postgres.Store {
	s := postgres.NewStore(db)
	if citus, err := postgres.IsCitus(context.Background(), db.DB); err == nil && citus {
		return s.ForCitus()
	}
	return s
}

// mode is a way of running units of work: each unit its own transaction, or through the
// store's commit pipeline (units sharing batches).
type mode struct {
	name string
	s    *postgres.Store
}

var (
	pipelineOnce  sync.Once
	pipelineStore *postgres.Store
)

// modes are the store without and with the commit pipeline, over the test server's database.
// The pipeline is tuned for tests: a long wait, so that concurrent units land in one batch.
func modes() []mode {
	pipelineOnce.Do(func() {
		pipelineStore = newStore(store().DB()).WithPipeline(postgres.PipelineOptions{Lanes: 3, MaxBatch: 16, MaxWait: 3 * time.Millisecond})
	})
	return []mode{{"direct", newStore(store().DB())}, {"pipeline", pipelineStore}}
}

// forModes runs fn once per mode, as parallel subtests.
func forModes(t *testing.T, fn func(t *testing.T, m mode)) {
	for _, m := range modes() {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			fn(t, m)
		})
	}
}

// def is the test server's own store, as wiring configured it.
func def() mode { return mode{"server", store()} }

// newTenantID is a fresh tenant id for accounts of one test, so tests never share accounts.
func newTenantID() string { return core.NewID(core.PrefixTenant) }

// inTx runs fn in one unit of work, failing the test on error.
func inTx(t testing.TB, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	def().inTx(t, fn)
}

func (m mode) inTx(t testing.TB, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := m.s.InTx(context.Background(), fn); err != nil {
		t.Fatalf("unit of work: %v", err)
	}
}

// open opens accounts (get-or-create) in their own unit of work.
func open(t testing.TB, specs ...ledger.AccountSpec) []ledger.Account {
	return def().open(t, specs...)
}

func (m mode) open(t testing.TB, specs ...ledger.AccountSpec) []ledger.Account {
	t.Helper()
	var out []ledger.Account
	m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, err = tx.Ledger().OpenAccounts(ctx, time.Now(), specs...)
		return err
	})
	return out
}

// post records one transfer in its own unit of work and returns the outcome.
func post(spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	return def().post(spec)
}

func (m mode) post(spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	var t ledger.Transfer
	var replayed bool
	err := m.s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		t, replayed, err = tx.Ledger().Post(ctx, time.Now(), spec)
		return err
	})
	return t, replayed, err
}

func (m mode) mustPost(t testing.TB, spec ledger.TransferSpec) ledger.Transfer {
	t.Helper()
	tr, _, err := m.post(spec)
	if err != nil {
		t.Fatalf("post %s: %v", spec.Reference, err)
	}
	return tr
}

func balances(t testing.TB, ids ...string) map[string]ledger.Balance {
	return def().balances(t, ids...)
}

func (m mode) balances(t testing.TB, ids ...string) map[string]ledger.Balance {
	t.Helper()
	var out map[string]ledger.Balance
	m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, err = tx.Ledger().Balances(ctx, ids)
		return err
	})
	return out
}

func ref(parts ...string) string {
	s := "test"
	for _, p := range parts {
		s += ":" + p
	}
	return s + ":" + core.RandomToken(6)
}

func moveSpec(reference, from, to string, amount int64) ledger.TransferSpec {
	return ledger.TransferSpec{Reference: reference, Type: ledger.TypePosted, Environment: core.EnvTest,
		Asset: ledger.AssetUSDC, Postings: ledger.Move(from, to, amount)}
}

// fund opens a tenant's available account and a world account and moves amount in.
func fund(t testing.TB, tenantID string, amount int64) (available, world ledger.Account) {
	return def().fund(t, tenantID, amount)
}

func (m mode) fund(t testing.TB, tenantID string, amount int64) (available, world ledger.Account) {
	t.Helper()
	accts := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID),
		ledger.World(core.EnvTest, ledger.AssetUSDC, "test-bank-"+tenantID))
	if amount > 0 {
		m.mustPost(t, moveSpec(ref("fund", tenantID), accts[1].ID, accts[0].ID, amount))
	}
	return accts[0], accts[1]
}

// countTransfers counts the recorded transfers of a reference, straight from the database.
func countTransfers(t testing.TB, reference string) int {
	t.Helper()
	var n int
	if err := store().DB().QueryRowContext(context.Background(),
		"SELECT count(*) FROM ledger_transfers WHERE reference = ?", reference).Scan(&n); err != nil {
		t.Fatalf("count transfers: %v", err)
	}
	return n
}
