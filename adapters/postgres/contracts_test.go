package postgres_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/cipher"
	"github.com/corridorhq/corridor/adapters/payout"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/adapters/sms"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/portstest"
	"github.com/corridorhq/corridor/test/testdb"
)

// The contract suites of ports/portstest against the adapters that keep their state in
// Postgres: every repository of a unit of work, the mock payout provider and the sandbox SMS
// outbox. ports/fake runs the same suites against the in-memory fakes.

// migratedDB is one migrated database shared by the contract suites of a test.
func migratedDB(t *testing.T) *bun.DB {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestContracts(t *testing.T) {
	db := migratedDB(t)
	t.Run("Repositories", func(t *testing.T) { portstest.RunRepositories(t, postgres.NewStore(db)) })
	t.Run("PayoutProvider/mock", func(t *testing.T) {
		portstest.PayoutProvider(t, func(*testing.T) ports.PayoutProvider { return payout.NewMock("contract_mock", db) })
	})
	t.Run("SMS/sandbox", func(t *testing.T) {
		c, err := cipher.New([]byte("contract-suite-secret-of-32-bytes!"))
		if err != nil {
			t.Fatal(err)
		}
		gateway := sms.NewSandbox(db, c)
		tenants := claimDB{db: db, store: postgres.NewStore(db)}
		portstest.SMS(t, func(*testing.T) portstest.SMSGateway { return gateway }, tenants.newTenant)
	})
	t.Run("LedgerAnchorStore", func(t *testing.T) { portstest.LedgerAnchorStore(t, anchorWorld(db)) })
}

// anchorWorld drives the Postgres anchor store: a transfer is posted through the store's ledger
// (its link moves a chain head) and a send is a row of the relayer's log, each later than the last.
func anchorWorld(db *bun.DB) func(*testing.T) portstest.AnchorWorld {
	store, sends := postgres.NewStore(db), 0
	return func(*testing.T) portstest.AnchorWorld {
		return portstest.AnchorWorld{
			Store:   postgres.NewLedgerAnchors(db),
			Advance: func(t *testing.T) { portstest.PostTransfer(t, store) },
			LogSent: func(t *testing.T, chainID int64, payload []byte, hash string) {
				t.Helper()
				sends++
				_, err := db.DB.ExecContext(context.Background(), `INSERT INTO relayer_transactions
(chain_id, address, nonce, tx_hash, value_wei, data, gas, gas_fee_cap, gas_tip_cap, sent_at)
VALUES ($1, '0xrelayer', $2::bigint, $3, 0, $4, 21000, 0, 0, now() + make_interval(secs => $2::bigint))`, chainID, sends, hash, payload)
				if err != nil {
					t.Fatal(err)
				}
			},
		}
	}
}
