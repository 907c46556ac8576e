package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// countedConn counts the writes of a connection to PostgreSQL: pgx writes one exchange
// (everything up to its Sync) in one write, so the count is the round trips the service paid.
type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// exchangeStore is a store over one connection whose writes are counted.
func exchangeStore(t *testing.T) (*Store, *atomic.Int64) {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := Migrate(url); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	dialer := &net.Dialer{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn{Conn: c, writes: writes}, nil
	}
	sqldb := sql.OpenDB(lazyConnector{inner: stdlib.GetConnector(*cfg)})
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	return NewStore(db), writes
}

// TestCards_DecisionStatementsRoundTrips: with the connection warm (its statements prepared),
// a use case's unit that locks a card for a decision pays one exchange for its savepoint and
// the lock read together, and one that records an approval with its windows and event pays
// one with the savepoint's release; each unit's commit is the other write. Before the lock
// read carried the savepoint, the first unit wrote three times. Marked as the request's last
// write (ports.WithLastWrite), the approval travels with the COMMIT, which its failure then
// fails. The windows add up, and an approval whose event is another resource's is refused.
func TestCards_DecisionStatementsRoundTrips(t *testing.T) {
	store, writes := exchangeStore(t)
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tn := tenant.Tenant{ID: "ten_rt", Slug: "rt", Name: "RT", OwnerUserID: "usr_rt", CreatedAt: now}
	h := card.Cardholder{ID: core.NewID(core.PrefixCardholder), TenantID: tn.ID, Environment: core.EnvTest,
		Name: "Round", Email: "round@example.com", CreatedAt: now}
	c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: tn.ID, Environment: core.EnvTest, Funding: card.FundingAccount,
		CardholderID: h.ID, Issuer: "sandbox", IssuerCardID: "ic_rt", Last4: "4242", Status: card.StatusActive,
		Limits: card.Limits{BlockedMCC: []string{"7995"}, AllowedMCC: []string{"5411"}}, CreatedAt: now, UpdatedAt: now}
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Tenants().CreateTenant(ctx, tn); err != nil {
			return err
		}
		if err := tx.Cards().CreateCardholder(ctx, h); err != nil {
			return err
		}
		return tx.Cards().CreateCard(ctx, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	w := card.WindowsAt(now)
	inUseCase := func(step func(ctx context.Context, tx ports.Tx) error) int64 {
		t.Helper()
		before := writes.Load()
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			return store.InTx(ctx, step) // the use case's own unit: a savepoint
		})
		if err != nil {
			t.Fatal(err)
		}
		return writes.Load() - before
	}
	var spent []card.Spend
	lock := func(ctx context.Context, tx ports.Tx) error {
		d, err := tx.Cards().LockCardForDecision(ctx, tn.ID, core.EnvTest, c.ID, w)
		if err == nil && (d.Card.ID != c.ID || d.PolicyAttached || len(d.Card.Limits.AllowedMCC) != 1 || d.Card.Limits.BlockedMCC[0] != "7995") {
			t.Errorf("decision rows %+v: want the card as created, no policy attached", d)
		}
		spent = append(spent, d.Spent)
		return err
	}
	approve := func(ctx context.Context, tx ports.Tx) error {
		a := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: tn.ID, Environment: core.EnvTest, CardID: c.ID,
			Amount: 700, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: w, CreatedAt: now, UpdatedAt: now}
		announce := event.New(tn.ID, core.EnvTest, "card_authorization.approved", a.ID, map[string]any{"amount": "0.0007"}, now)
		return tx.Cards().CreateSpendingAuthorization(ctx, a, announce)
	}
	inUseCase(lock) // the first use of each statement on the connection prepares it
	inUseCase(approve)
	if n := inUseCase(lock); n != 2 {
		t.Errorf("lock for decision: %d writes, want 2 (savepoint with the lock read; commit)", n)
	}
	if n := inUseCase(approve); n != 2 {
		t.Errorf("approval: %d writes, want 2 (release with the approval; commit)", n)
	}
	// Marked as the request's last write, the approval waits on the connection and travels with
	// the COMMIT (and the savepoint's release): one write.
	last := func(ctx context.Context, tx ports.Tx) error { return approve(ports.WithLastWrite(ctx), tx) }
	inUseCase(last) // a batch of statements prepares the ones it has not met yet first
	if n := inUseCase(last); n != 1 {
		t.Errorf("approval as the last write: %d writes, want 1 (with the commit)", n)
	}
	// Held back, its failure is the COMMIT's: the unit fails and nothing of it is written.
	ghost := func(ctx context.Context, tx ports.Tx) error {
		a := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: tn.ID, Environment: core.EnvTest, CardID: "card_missing",
			Amount: 700, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: w, CreatedAt: now, UpdatedAt: now}
		announce := event.New(tn.ID, core.EnvTest, "card_authorization.approved", a.ID, map[string]any{}, now)
		if err := tx.Cards().CreateSpendingAuthorization(ports.WithLastWrite(ctx), a, announce); err != nil {
			return fmt.Errorf("held back, the approval cannot fail before the commit: %w", err)
		}
		return nil
	}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return store.InTx(ctx, ghost) }); err == nil ||
		strings.Contains(err.Error(), "before the commit") {
		t.Errorf("an approval of a card that does not exist, held back: %v; want the commit to fail", err)
	}
	// The statement writes the approval's tenant, environment and id once for both rows: an
	// event of another resource is refused, and nothing of the approval is written.
	foreign := func(ctx context.Context, tx ports.Tx) error {
		a := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: tn.ID, Environment: core.EnvTest, CardID: c.ID,
			Amount: 700, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: w, CreatedAt: now, UpdatedAt: now}
		other := event.New(tn.ID, core.EnvTest, "card_authorization.approved", core.NewID(core.PrefixCardAuth), map[string]any{}, now)
		return tx.Cards().CreateSpendingAuthorization(ctx, a, other)
	}
	if err := store.InTx(ctx, foreign); err == nil {
		t.Error("an approval with another resource's event was accepted")
	}
	inUseCase(lock)
	var ghosts int
	if err := store.db.QueryRowContext(ctx, "SELECT count(*) FROM card_authorizations WHERE card_id = 'card_missing'").Scan(&ghosts); err != nil || ghosts != 0 {
		t.Errorf("approvals of the missing card: %d (%v), want none", ghosts, err)
	}
	if want := (card.Spend{Daily: 2800, Weekly: 2800, Monthly: 2800}); spent[len(spent)-1] != want {
		t.Errorf("windows after two approvals: %+v, want %+v", spent[len(spent)-1], want)
	}
}
