package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// openOne opens spec in its own unit of work on s and returns the account.
func openOne(t *testing.T, s *postgres.Store, spec ledger.AccountSpec) ledger.Account {
	t.Helper()
	var a ledger.Account
	err := s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), spec)
		if err == nil {
			a = accts[0]
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (p pipeDB) accountExists(t *testing.T, id string) bool {
	t.Helper()
	var n int
	if err := p.db.QueryRowContext(context.Background(), "SELECT count(*) FROM ledger_accounts WHERE id = ?", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestAccountRefs_CommittedOnly: an account is answered from memory only once the transaction
// that found it committed; one created in a nested unit of work that was rolled back, or in a
// batch unit that failed, is never remembered, and opening it again creates it for real.
func TestAccountRefs_CommittedOnly(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 1)
	boom := errors.New("rolled back")
	for _, tc := range []struct {
		name  string
		store *postgres.Store
	}{
		{"direct", p.direct},
		{"pipeline", p.pipeline(t, postgres.PipelineOptions{Lanes: 1, MaxWait: -1})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.store
			kept := ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, core.NewID(core.PrefixTenant))
			undone := ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, core.NewID(core.PrefixTenant))
			failed := ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, core.NewID(core.PrefixTenant))
			err := s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if _, err := tx.Ledger().OpenAccounts(ctx, time.Now(), kept); err != nil {
					return err
				}
				nested := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
					if _, err := tx.Ledger().OpenAccounts(ctx, time.Now(), undone); err != nil {
						return err
					}
					return boom
				})
				if !errors.Is(nested, boom) {
					t.Errorf("nested unit: %v", nested)
				}
				if postgres.RemembersAccount(s, string(core.EnvTest), ledger.AssetUSDC, kept.Reference) {
					t.Error("an account was remembered before its transaction committed")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			err = s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if _, err := tx.Ledger().OpenAccounts(ctx, time.Now(), failed); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("failing unit: %v", err)
			}
			if !postgres.RemembersAccount(s, string(core.EnvTest), ledger.AssetUSDC, kept.Reference) {
				t.Error("the committed account is not remembered")
			}
			for _, spec := range []ledger.AccountSpec{undone, failed} {
				if postgres.RemembersAccount(s, string(core.EnvTest), ledger.AssetUSDC, spec.Reference) {
					t.Errorf("%s was remembered though its creation was rolled back", spec.Reference)
				}
				if a := openOne(t, s, spec); !p.accountExists(t, a.ID) {
					t.Errorf("opening %s again answered %s, which does not exist", spec.Reference, a.ID)
				}
			}
			if a := openOne(t, s, kept); !p.accountExists(t, a.ID) {
				t.Errorf("the remembered account %s does not exist", a.ID)
			}
		})
	}
}
