package fake_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// The fake escrow walks the contract's states, answers a repeated call with the zero hash and
// refuses what the contract refuses; each transition is one log, in order.
func TestClaimEscrow_States(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	e := fake.NewClaimEscrow(time.Hour, func() time.Time { return now })
	id := [32]byte{1}
	var revert *ports.RevertError
	if _, err := e.FundClaim(ctx, id, big.NewInt(5), now, [32]byte{}); !errors.As(err, &revert) {
		t.Fatalf("funding at its expiry: %v", err)
	}
	if h, err := e.FundClaim(ctx, id, big.NewInt(5), now.Add(time.Hour), [32]byte{9}); err != nil || h == (common.Hash{}) {
		t.Fatalf("fund: %s, %v", h.Hex(), err)
	}
	if h, err := e.FundClaim(ctx, id, big.NewInt(5), now.Add(time.Hour), [32]byte{9}); err != nil || h != (common.Hash{}) {
		t.Fatalf("a second fund sent %s, %v", h.Hex(), err)
	}
	if _, err := e.LockClaim(ctx, id); err != nil {
		t.Fatal(err)
	}
	now = now.Add(90 * time.Minute) // past expiry, inside the grace period of a locked claim
	if _, err := e.RefundClaim(ctx, id); !errors.As(err, &revert) {
		t.Fatalf("refund of a locked claim inside the grace period: %v", err)
	}
	if _, err := e.ReleaseClaim(ctx, id, e.SettlementAddress(), [32]byte{7}); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.EscrowClaim(ctx, id); c.State != ports.EscrowReleased || c.AmountBaseUnits.Int64() != 5 {
		t.Fatalf("claim %+v", c)
	}
	if _, err := e.CancelClaim(ctx, id); !errors.As(err, &revert) {
		t.Fatalf("cancel of a released claim: %v", err)
	}
	logs, err := e.ClaimEscrowLogs(ctx, 1, 10)
	if err != nil || len(logs) != 3 || logs[0].Kind != claim.EventFunded || logs[1].Kind != claim.EventLocked || logs[2].Kind != claim.EventReleased ||
		logs[2].DecisionHash != [32]byte{7} {
		t.Fatalf("logs %+v, %v", logs, err)
	}
}
