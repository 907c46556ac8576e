package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// unitLog is a store that records its units of work and what ran inside or outside them.
type unitLog struct {
	ports.Store
	open bool
	log  []string
}

type unitKey struct{}

func (s *unitLog) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	s.log = append(s.log, "begin")
	s.open = true
	err := fn(context.WithValue(ctx, unitKey{}, true), nil)
	s.open = false
	s.log = append(s.log, map[bool]string{true: "commit", false: "rollback"}[err == nil])
	return err
}

func (s *unitLog) note(step string) {
	s.log = append(s.log, step+map[bool]string{true: " inside", false: " outside"}[s.open])
}

// TestRunner_OneShape: without an Idempotency-Key the runner still opens the one unit of work:
// prepare runs outside it, apply inside it, and a prepared answer reaches the unit.
func TestRunner_OneShape(t *testing.T) {
	store := &unitLog{}
	runner, err := NewIdempotency(IdempotencyDeps{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	out, replayed, err := runner.Run(context.Background(), IdempotentRequest{}, func(ctx context.Context) (Apply, error) {
		store.note("prepare")
		Remember(ctx, "screening:x", "clear")
		return func(ctx context.Context) (Outcome, error) {
			store.note("apply")
			verdict, ok := Recall[string](ctx, "screening:x")
			if !ok || verdict != "clear" || ctx.Value(unitKey{}) == nil {
				return Outcome{}, errors.New("the unit did not get the prepared answer in its own context")
			}
			return Outcome{StatusCode: 201}, nil
		}, nil
	})
	if err != nil || replayed || out.StatusCode != 201 {
		t.Fatalf("run: %+v, %v, %v", out, replayed, err)
	}
	if got := strings.Join(store.log, ","); got != "prepare outside,begin,apply inside,commit" {
		t.Fatalf("steps %s", got)
	}
}

// TestRunner_PrepareRefusal: a prepare that refuses a request without a key opens no unit.
func TestRunner_PrepareRefusal(t *testing.T) {
	store := &unitLog{}
	runner, err := NewIdempotency(IdempotencyDeps{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	refusal := core.E(core.CodeInvalidState, "the node is behind")
	_, _, err = runner.Run(context.Background(), IdempotentRequest{}, func(context.Context) (Apply, error) { return nil, refusal })
	if !errors.Is(err, refusal) || len(store.log) != 0 {
		t.Fatalf("err %v, steps %v: want the refusal and no unit", err, store.log)
	}
}

type sqlStateErr string

func (e sqlStateErr) Error() string    { return "sqlstate " + string(e) }
func (e sqlStateErr) SQLState() string { return string(e) }

func TestMustRunAgain(t *testing.T) {
	for err, want := range map[error]bool{sqlStateErr("40001"): true, sqlStateErr("40P01"): true, sqlStateErr("55P03"): true,
		sqlStateErr("23505"): false, fmt.Errorf("ledger open accounts: %w", sqlStateErr("55P03")): true,
		errors.New("plain"): false, core.E(core.CodeInternal, "x"): false} {
		if got := MustRunAgain(err); got != want {
			t.Errorf("MustRunAgain(%v) = %v, want %v", err, got, want)
		}
	}
}
