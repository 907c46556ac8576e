package wallets

import (
	"context"
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// activityStore is a store whose one transaction knows a set of wallets and answers the
// activity list from rows, recording what it was asked. Every other repository is absent: the
// use case must not reach for it.
type activityStore struct {
	wallets map[string]bool
	rows    []ports.WalletActivity
	total   int
	// units counts transactions opened; listed is the query the list was asked, nil if never.
	units  int
	listed *ports.ActivityQuery
}

func (s *activityStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	s.units++
	return fn(ctx, activityTx{s: s})
}

func (s *activityStore) Ping(context.Context) error { return nil }

type activityTx struct {
	ports.Tx
	s *activityStore
}

func (tx activityTx) Wallets() ports.WalletRepo                { return activityWallets{s: tx.s} }
func (tx activityTx) WalletActivity() ports.WalletActivityRepo { return activityRows{s: tx.s} }

type activityWallets struct {
	ports.WalletRepo
	s *activityStore
}

func (w activityWallets) FindWallet(_ context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error) {
	if !w.s.wallets[tenantID+"/"+string(env)+"/"+id] {
		return wallet.Wallet{}, core.E(core.CodeWalletNotFound, "wallet %s not found", id)
	}
	return wallet.Wallet{ID: id}, nil
}

type activityRows struct{ s *activityStore }

func (r activityRows) ListWalletActivity(_ context.Context, q ports.ActivityQuery, page ports.Page) ([]ports.WalletActivity, int, error) {
	r.s.listed = &q
	end := min(page.Skip+page.Take, len(r.s.rows))
	if page.Skip >= end {
		return nil, r.s.total, nil
	}
	return r.s.rows[page.Skip:end], r.s.total, nil
}

func activityService(t *testing.T, store *activityStore) *Service {
	t.Helper()
	s, err := New(Deps{Store: store, Jobs: noJobs{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func reader(scopes ...auth.Scope) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_1", Environment: core.EnvTest, Scopes: scopes}
}

// TestActivity_OneScopeCheckBeforeAnyRead: the use case asks for wallets:read and
// payments:read (a row is a wallet movement or a Safe payment) and refuses before it opens a
// unit of work.
func TestActivity_OneScopeCheckBeforeAnyRead(t *testing.T) {
	for _, row := range []struct {
		name   string
		scopes []auth.Scope
	}{
		{"without payments:read", []auth.Scope{auth.ScopeWalletsRead}},
		{"without wallets:read", []auth.Scope{auth.ScopePaymentsRead}},
		{"with neither", nil},
	} {
		t.Run(row.name, func(t *testing.T) {
			store := &activityStore{}
			_, err := activityService(t, store).Activity(context.Background(), reader(row.scopes...), ports.ActivityQuery{},
				ports.Page{Take: 10})
			var de *core.Error
			if !errors.As(err, &de) || de.Code != core.CodeInsufficientScope {
				t.Fatalf("err = %v, want %s", err, core.CodeInsufficientScope)
			}
			if store.units != 0 {
				t.Fatalf("%d units of work opened before the refusal", store.units)
			}
		})
	}
}

// TestActivity_PagesInOneUnit: the caller's tenant and environment select the rows, whatever
// the query says; the wallet's existence and the page are read in one unit of work; hasMore
// says whether rows follow the page.
func TestActivity_PagesInOneUnit(t *testing.T) {
	rows := []ports.WalletActivity{{ID: "pay_3"}, {ID: "pay_2"}, {ID: "pay_1"}}
	for _, row := range []struct {
		name     string
		page     ports.Page
		wantRows int
		wantMore bool
	}{
		{"first page of two", ports.Page{Skip: 0, Take: 2}, 2, true},
		{"last page", ports.Page{Skip: 2, Take: 2}, 1, false},
		{"past the end", ports.Page{Skip: 3, Take: 2}, 0, false},
	} {
		t.Run(row.name, func(t *testing.T) {
			store := &activityStore{wallets: map[string]bool{"ten_1/TEST/wal_1": true}, rows: rows, total: len(rows)}
			got, err := activityService(t, store).Activity(context.Background(), reader(auth.ScopeWalletsRead, auth.ScopePaymentsRead),
				ports.ActivityQuery{TenantID: "ten_other", Environment: core.EnvLive, WalletID: "wal_1", Type: "withdrawal"}, row.page)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != row.wantRows || got.Total != len(rows) || got.HasMore != row.wantMore {
				t.Fatalf("page = %d rows, total %d, hasMore %t; want %d, %d, %t", len(got.Rows), got.Total, got.HasMore,
					row.wantRows, len(rows), row.wantMore)
			}
			want := ports.ActivityQuery{TenantID: "ten_1", Environment: core.EnvTest, WalletID: "wal_1", Type: "withdrawal"}
			if store.listed == nil || *store.listed != want {
				t.Fatalf("listed %+v, want %+v", store.listed, want)
			}
			if store.units != 1 {
				t.Fatalf("%d units of work, want 1", store.units)
			}
		})
	}
}

// TestActivity_AnotherTenantsWalletIsNotFound: a wallet the caller does not own answers
// WALLET_NOT_FOUND and nothing is listed.
func TestActivity_AnotherTenantsWalletIsNotFound(t *testing.T) {
	store := &activityStore{wallets: map[string]bool{"ten_2/TEST/wal_1": true}}
	_, err := activityService(t, store).Activity(context.Background(), reader(auth.ScopeWalletsRead, auth.ScopePaymentsRead),
		ports.ActivityQuery{WalletID: "wal_1"}, ports.Page{Take: 10})
	var de *core.Error
	if !errors.As(err, &de) || de.Code != core.CodeWalletNotFound {
		t.Fatalf("err = %v, want %s", err, core.CodeWalletNotFound)
	}
	if store.listed != nil {
		t.Fatal("the activity of another tenant's wallet was listed")
	}
}
