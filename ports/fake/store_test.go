package fake_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

type testJob struct{ n int }

func (testJob) Kind() string { return "test" }

// Jobs are part of the unit of work that enqueues them, a Read changes nothing, and a panic
// inside a unit rolls it back.
func TestStore_JobsReadsAndPanicsFollowTheUnit(t *testing.T) {
	ctx := context.Background()
	s := fake.NewStore()
	jobs := fake.Jobs{Store: s}
	if err := jobs.Enqueue(ctx, testJob{0}, ports.JobOptions{}); err == nil {
		t.Fatal("a job was enqueued outside a unit of work")
	}
	_ = s.InTx(ctx, func(ctx context.Context, _ ports.Tx) error {
		if err := jobs.Enqueue(ctx, testJob{1}, ports.JobOptions{}); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	_ = s.InTx(ctx, func(ctx context.Context, _ ports.Tx) error { return jobs.Enqueue(ctx, testJob{2}, ports.JobOptions{}) })
	if got := s.Jobs(); len(got) != 1 || got[0].Args.(testJob).n != 2 {
		t.Fatalf("committed jobs %+v", got)
	}
	c := card.Card{ID: "card_1", TenantID: "ten_1", Status: card.StatusActive}
	_ = s.Read(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Cards().CreateCard(ctx, c) })
	if _, ok := s.Card(c.ID); ok {
		t.Fatal("a Read committed a write")
	}
	func() {
		defer func() { _ = recover() }()
		_ = s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			_ = tx.Cards().CreateCard(ctx, c)
			panic("boom")
		})
	}()
	if _, ok := s.Card(c.ID); ok {
		t.Fatal("a unit that panicked committed its write")
	}
	if s.Commits() != 1 {
		t.Fatalf("%d commits, want 1", s.Commits())
	}
}

// TestTx_EveryRepositoryModelled: the fake is a whole store. Every repository a unit of work
// hands out answers (none panics or is nil), so a use-case test never stops at a gap; the
// contract suites (contracts_test.go) hold each to what Postgres does.
func TestTx_EveryRepositoryModelled(t *testing.T) {
	err := fake.NewStore().InTx(context.Background(), func(_ context.Context, tx ports.Tx) error {
		v, repos := reflect.ValueOf(tx), reflect.TypeFor[ports.Tx]()
		for i := range repos.NumMethod() {
			name := repos.Method(i).Name
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("ports.Tx.%s panicked: %v", name, p)
					}
				}()
				if out := v.MethodByName(name).Call(nil); out[0].IsNil() {
					t.Errorf("ports.Tx.%s is nil", name)
				}
			}()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
