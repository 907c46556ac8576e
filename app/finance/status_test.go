package finance

import (
	"context"
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// statusStore is the ports/fake store, down when pingErr is set, with the mirror's cursor on
// TEST's chain when cursor is set.
type statusStore struct {
	pingErr error
	cursor  *ports.ChainCursor
}

func (s statusStore) build(t *testing.T) *fake.Store {
	t.Helper()
	store := fake.NewStore()
	store.PingErr = s.pingErr
	if s.cursor != nil {
		c := *s.cursor
		c.Environment, c.ChainID = core.EnvTest, 84532
		if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.ChainIndex().SaveCursor(ctx, c) }); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// statusChain is a chain double whose head is latest, or unreadable when err is set.
type statusChain struct {
	ports.Chain
	latest uint64
	err    error
}

func (c statusChain) ChainID() int64 { return 84532 }
func (c statusChain) LatestBlock(context.Context) (uint64, error) {
	return c.latest, c.err
}

var statusReader = auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_status", Environment: core.EnvTest,
	Scopes: []auth.Scope{auth.ScopeStatusRead}}

func newStatusService(t *testing.T, store statusStore, chain ports.Chain) *Service {
	t.Helper()
	chains := map[core.Environment]ports.Chain{}
	if chain != nil {
		chains[core.EnvTest] = chain
	}
	s, err := New(Deps{Store: store.build(t), Chains: chains})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStatus(t *testing.T) {
	cursorAt := func(next uint64) *ports.ChainCursor { return &ports.ChainCursor{NextBlock: next} }
	for _, tc := range []struct {
		name             string
		store            statusStore
		chain            ports.Chain
		overall, db, env string
		lag              *uint64
		problem          bool
	}{
		{"healthy, mirror 5 blocks behind", statusStore{cursor: cursorAt(96)}, statusChain{latest: 100}, HealthOK, HealthOK, HealthOK, ptr(uint64(5)), false},
		{"mirror never ran", statusStore{}, statusChain{latest: 100}, HealthOK, HealthOK, HealthOK, nil, false},
		{"mirror far behind", statusStore{cursor: cursorAt(1)}, statusChain{latest: 10_000}, HealthDegraded, HealthOK, HealthDegraded, ptr(uint64(10_000)), true},
		{"chain down", statusStore{cursor: cursorAt(96)}, statusChain{err: errors.New("dial tcp: connection refused")}, HealthDegraded, HealthOK, HealthUnavailable, nil, true},
		{"no chain configured", statusStore{}, nil, HealthOK, HealthOK, HealthNotConfigured, nil, false},
		{"database down", statusStore{pingErr: errors.New("down"), cursor: cursorAt(96)}, statusChain{latest: 100}, HealthDegraded, HealthUnavailable, HealthOK, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := newStatusService(t, tc.store, tc.chain).Status(context.Background(), statusReader)
			if err != nil {
				t.Fatalf("Status: %v (a part that is down is reported, never an error)", err)
			}
			if rep.Status != tc.overall || rep.Database != tc.db || len(rep.Chains) != 2 {
				t.Fatalf("report %+v, want status %s database %s", rep, tc.overall, tc.db)
			}
			test, live := rep.Chains[0], rep.Chains[1]
			if test.Environment != core.EnvTest || test.Status != tc.env || (test.Problem != "") != tc.problem {
				t.Errorf("TEST chain %+v, want %s (problem %v)", test, tc.env, tc.problem)
			}
			if (tc.lag == nil) != (test.MirrorLagBlocks == nil) || (tc.lag != nil && *tc.lag != *test.MirrorLagBlocks) {
				t.Errorf("lag %v, want %v", test.MirrorLagBlocks, tc.lag)
			}
			if live.Environment != core.EnvLive || live.Status != HealthNotConfigured {
				t.Errorf("LIVE chain %+v", live)
			}
		})
	}
}

func TestStatus_NeedsTheScope(t *testing.T) {
	p := statusReader
	p.Scopes = []auth.Scope{auth.ScopeWalletsRead}
	_, err := newStatusService(t, statusStore{}, nil).Status(context.Background(), p)
	if !errors.Is(err, &core.Error{Code: core.CodeInsufficientScope}) {
		t.Fatalf("err = %v, want INSUFFICIENT_SCOPE", err)
	}
}

func ptr[T any](v T) *T { return &v }
