package kernel

import (
	"context"
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// TestOutsideReads_ReadBetweenRuns: a unit that asks for an outside read is run again with the
// answer; the read runs once and never while a transaction is open, even when a nested unit
// asked; a read's failure is the answer, not the unit's.
func TestOutsideReads_ReadBetweenRuns(t *testing.T) {
	units := fake.NewStore()
	store := OutsideReadsStore{Store: units}
	reads, runs := 0, 0
	read := func(ctx context.Context) (string, error) {
		if units.InUnit() {
			t.Fatal("the outside read ran inside a transaction")
		}
		reads++
		return "clear", errors.New("vendor down")
	}
	var got string
	var gotErr error
	err := store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		runs++
		return store.InTx(ctx, func(ctx context.Context, _ ports.Tx) error {
			var err error
			got, err = OutsideRead(ctx, "screening:x", read)
			if IsOutsideReadRequest(err) {
				return err
			}
			gotErr = err
			return nil
		})
	})
	if err != nil || runs != 2 || reads != 1 || got != "clear" || gotErr == nil || gotErr.Error() != "vendor down" {
		t.Fatalf("err %v, runs %d, reads %d, answer %q %v", err, runs, reads, got, gotErr)
	}
}

// TestOutsideReads_Bounded: a unit whose questions never settle fails INTERNAL after the bound.
func TestOutsideReads_Bounded(t *testing.T) {
	store := OutsideReadsStore{Store: fake.NewStore()}
	n := 0
	err := store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		n++
		_, err := OutsideRead(ctx, "k"+string(rune('a'+n)), func(context.Context) (int, error) { return n, nil })
		return err
	})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInternal || n != maxOutsideReadPasses {
		t.Fatalf("after %d runs: %v", n, err)
	}
}

// TestOutsideReads_WithoutTheStore: a use-case test over fakes, without the decorator, reads
// directly.
func TestOutsideReads_WithoutTheStore(t *testing.T) {
	v, err := OutsideRead(context.Background(), "k", func(context.Context) (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("%d %v", v, err)
	}
}
