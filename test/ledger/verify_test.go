package ledger

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// privateLedger is a migrated (and, on Citus, distributed) database of its own, for tests that
// tamper with rows.
type privateLedger struct {
	url   string
	store *postgres.Store
}

func newPrivateLedger(t *testing.T) privateLedger {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	// On a Citus cluster the tables are placed as `corridor migrate` places them (the chain's
	// by bucket key); on PostgreSQL this does nothing.
	if _, err := postgres.Distribute(ctx, url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return privateLedger{url: url, store: newStore(db)}
}

// populate posts 80 transfers, each in its own unit of work, so that they spread over the
// chain stripes, and returns them.
func (p privateLedger) populate(t *testing.T) []ledger.Transfer {
	t.Helper()
	var accts []ledger.Account
	var out []ledger.Transfer
	in := func(fn func(ctx context.Context, tx ports.Tx) error) {
		if err := p.store.InTx(context.Background(), fn); err != nil {
			t.Fatal(err)
		}
	}
	in(func(ctx context.Context, tx ports.Tx) error {
		var err error
		accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(),
			ledger.World(core.EnvTest, ledger.AssetUSDC, "bank"), ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, "ten_a"),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, "ten_b"))
		return err
	})
	for i := 0; i < 80; i++ {
		spec := moveSpec(ref("pop"), accts[0].ID, accts[1+i%2].ID, usd(int64(1+i)))
		if i%5 == 4 {
			spec = ledger.TransferSpec{Reference: ref("pop-hold"), Type: ledger.TypePending, Environment: core.EnvTest,
				Asset: ledger.AssetUSDC, Postings: ledger.Move(accts[1].ID, accts[2].ID, 1)}
		}
		in(func(ctx context.Context, tx ports.Tx) error {
			tr, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
			out = append(out, tr)
			return err
		})
	}
	return out
}

// stripeOf reads the chain stripe a transfer was linked into.
func (p privateLedger) stripeOf(t *testing.T, transferID string) int {
	t.Helper()
	var stripe int
	if err := p.store.DB().QueryRowContext(context.Background(), "SELECT stripe FROM ledger_chain WHERE transfer_id = ?", transferID).Scan(&stripe); err != nil {
		t.Fatal(err)
	}
	return stripe
}

func (p privateLedger) verify(t *testing.T) postgres.LedgerVerification {
	t.Helper()
	v, err := postgres.VerifyLedger(context.Background(), p.store.DB())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (p privateLedger) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := p.store.DB().ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestVerify_Tamper: verify passes on an honest ledger and names the first broken transfer,
// with its stripe, after a posting's amount, a transfer's amount or a balance row is edited;
// and it reports the account history rows that the foreign keys dropped by migration 000050
// used to refuse, or that disagree with their transfer's posting arrays.
func TestVerify_Tamper(t *testing.T) {
	t.Parallel()
	// copyRow inserts a copy of the victim's credit history row with changed columns.
	copyRow := func(t *testing.T, p privateLedger, v ledger.Transfer, transferID, accountID, sequence string) {
		p.exec(t, `INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta,
			pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after,
			home_tenant_id, transfer_home_tenant_id)
		SELECT `+transferID+`, `+accountID+`, `+sequence+`, created_at, amount, posted_delta, pending_debits_delta,
			pending_credits_delta, posted_after, pending_debits_after, pending_credits_after, home_tenant_id,
			transfer_home_tenant_id
		FROM ledger_postings WHERE transfer_id = ? AND amount > 0`, v.ID)
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, p privateLedger, victim ledger.Transfer)
		chain  bool   // whether the chain itself breaks (else only the history check notices)
		want   string // a problem verify must report, if any
	}{
		{"posting amount", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "UPDATE ledger_transfers SET posting_amounts = ARRAY[posting_amounts[1] * 2, posting_amounts[2] * 2] WHERE id = ?", v.ID)
		}, true, ""},
		{"history amount differs from the arrays", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "UPDATE ledger_postings SET amount = amount + 1 WHERE transfer_id = ? AND amount > 0", v.ID)
		}, false, "the history row says"},
		{"history row of no account", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			copyRow(t, p, v, "transfer_id", "'acc_nobody'", "sequence")
		}, false, "the account does not exist"},
		{"history row of no transfer", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			copyRow(t, p, v, "'trf_nobody'", "account_id", "sequence + 1000000")
		}, false, "transfer trf_nobody does not list it"},
		{"history row its transfer does not list", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, `UPDATE ledger_postings SET account_id = (SELECT a.id FROM ledger_accounts a
				WHERE a.id <> ALL (SELECT unnest(posting_accounts) FROM ledger_transfers WHERE id = ?) ORDER BY a.id LIMIT 1)
			WHERE transfer_id = ? AND amount > 0`, v.ID, v.ID)
		}, false, "does not list it"},
		{"leg without a history row", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "DELETE FROM ledger_postings WHERE transfer_id = ? AND amount > 0", v.ID)
		}, false, "has no history row"},
		{"transfer amount", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "UPDATE ledger_transfers SET amount = 5 WHERE id = ?", v.ID)
		}, true, ""},
		{"link hash", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "UPDATE ledger_chain SET hash = sha256(hash) WHERE transfer_id = ?", v.ID)
		}, true, ""},
		{"transfer deleted", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "DELETE FROM ledger_chain WHERE transfer_id = ?", v.ID)
			p.exec(t, "DELETE FROM ledger_postings WHERE transfer_id = ?", v.ID)
			p.exec(t, "DELETE FROM ledger_transfers WHERE id = ?", v.ID)
		}, true, ""},
		{"transfer deleted, its link kept", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "DELETE FROM ledger_postings WHERE transfer_id = ?", v.ID)
			p.exec(t, "DELETE FROM ledger_transfers WHERE id = ?", v.ID)
		}, true, ""},
		{"balance row", func(t *testing.T, p privateLedger, v ledger.Transfer) {
			p.exec(t, "UPDATE ledger_balances SET posted = posted + 1 WHERE account_id = ?", v.Postings[1].AccountID)
		}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newPrivateLedger(t)
			transfers := p.populate(t)
			if v := p.verify(t); !v.OK() || v.Transfers != int64(len(transfers)) || v.Chains != 2*postgres.ChainStripes {
				t.Fatalf("honest ledger: %+v", v)
			}
			victim := transfers[37]
			stripe := p.stripeOf(t, victim.ID)
			c.tamper(t, p, victim)
			v := p.verify(t)
			if v.OK() {
				t.Fatal("verify passed a tampered ledger")
			}
			first, broken := v.FirstBreak()
			if broken != c.chain {
				t.Fatalf("chain broken = %v, want %v: %+v", broken, c.chain, v)
			}
			if c.want != "" && !strings.Contains(strings.Join(v.Problems, "\n"), c.want) {
				t.Fatalf("no problem mentions %q: %+v", c.want, v)
			}
			if !c.chain {
				return
			}
			if first.Stripe != stripe || first.Environment != core.EnvTest {
				t.Fatalf("first break %+v, victim %s is in stripe %d", first, victim.ID, stripe)
			}
			if c.name != "transfer deleted" && first.TransferID != victim.ID {
				t.Fatalf("first break names %s, the tampered transfer is %s", first.TransferID, victim.ID)
			}
		})
	}
}

// TestVerify_Command runs `corridor ledger verify`: exit status 0 and "ledger OK" on an honest
// ledger, 1 and the tampered transfer's id and stripe after tampering.
func TestVerify_Command(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the corridor binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "corridor")
	build := exec.Command("go", "build", "-o", bin, "github.com/corridorhq/corridor/cmd/corridor")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	p := newPrivateLedger(t)
	transfers := p.populate(t)
	run := func() (string, int) {
		cmd := exec.Command(bin, "ledger", "verify")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+p.url)
		out, err := cmd.Output()
		if exit, ok := err.(*exec.ExitError); ok {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return string(out), 0
	}
	out, code := run()
	if code != 0 || !strings.HasPrefix(out, "ledger OK: 80 transfers in 288 hash chains") {
		t.Fatalf("honest ledger: exit %d, output %q", code, out)
	}
	victim := transfers[12]
	p.exec(t, "UPDATE ledger_transfers SET posting_amounts = ARRAY[posting_amounts[1] * 2, posting_amounts[2] * 2] WHERE id = ?", victim.ID)
	out, code = run()
	want := fmt.Sprintf("first break at transfer %s (environment TEST, stripe %d, ", victim.ID, p.stripeOf(t, victim.ID))
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("tampered ledger: exit %d, output %q; want it to contain %q", code, out, want)
	}
}

// TestStore_MultiTransferUnitsDoNotDeadlock: units of work that post several transfers each,
// concurrently, over disjoint accounts, never deadlock. The chain link is appended at commit
// in the one stripe the transaction holds for its tenant bucket, so the chain heads cannot form a lock cycle; PostgreSQL's
// own deadlock counter for the database stays at zero.
func TestStore_MultiTransferUnitsDoNotDeadlock(t *testing.T) {
	t.Parallel()
	p := newPrivateLedger(t)
	db, err := postgres.Open(context.Background(), p.url, postgres.Options{MaxOpenConns: 16})
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(db)
	const workers, units, perUnit = 8, 12, 10
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenantID := newTenantID()
			var accts []ledger.Account
			err := s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				var err error
				accts, err = tx.Ledger().OpenAccounts(ctx, time.Now(), ledger.World(core.EnvTest, ledger.AssetUSDC, tenantID),
					ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID))
				return err
			})
			for u := 0; u < units && err == nil; u++ {
				err = s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
					for i := 0; i < perUnit; i++ {
						if _, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(ref("multi"), accts[0].ID, accts[1].ID, 1)); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err != nil {
				t.Errorf("worker: %v", err)
			}
		}()
	}
	wg.Wait()
	_ = db.Close() // backends flush their statistics when they exit
	if v := p.verify(t); !v.OK() || v.Transfers != workers*units*perUnit {
		t.Fatalf("verify: %+v", v)
	}
	var deadlocks int64
	for i := 0; i < 20; i++ { // statistics of exiting backends arrive shortly after
		err := p.store.DB().QueryRowContext(context.Background(),
			"SELECT pg_stat_clear_snapshot(), deadlocks FROM pg_stat_database WHERE datname = current_database()").Scan(new(any), &deadlocks)
		if err != nil {
			t.Fatal(err)
		}
		if deadlocks > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if deadlocks != 0 {
		t.Fatalf("%d deadlocks among units of work posting several transfers", deadlocks)
	}
}
