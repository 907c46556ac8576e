package ledger

import (
	"errors"
	"time"

	"github.com/corridorhq/corridor/core"
)

// t0 is the tests' fixed "now": times are explicit inputs, never the wall clock.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// Fixed account and transfer ids shared by the table tests.
var (
	aliceID = core.NewID(core.PrefixAccount) // tenant available, NonNegative
	bobID   = core.NewID(core.PrefixAccount) // tenant available, NonNegative
	worldID = core.NewID(core.PrefixAccount) // world, may go negative
	feesID  = core.NewID(core.PrefixAccount) // platform fees, NonNegative
	liveID  = core.NewID(core.PrefixAccount) // an account of the LIVE environment
	usdID   = core.NewID(core.PrefixAccount) // an account of another asset
)

func testAccounts() map[string]Account {
	specs := map[string]AccountSpec{
		aliceID: TenantAvailable(core.EnvTest, AssetUSDC, "ten_alice"),
		bobID:   TenantAvailable(core.EnvTest, AssetUSDC, "ten_bob"),
		worldID: World(core.EnvTest, AssetUSDC, "bank"),
		feesID:  PlatformFees(core.EnvTest, AssetUSDC),
		liveID:  TenantAvailable(core.EnvLive, AssetUSDC, "ten_alice"),
		usdID:   TenantAvailable(core.EnvTest, AssetUSD, "ten_alice"),
	}
	out := map[string]Account{}
	for id, spec := range specs {
		a, err := NewAccount(id, spec, t0)
		if err != nil {
			panic(err)
		}
		out[id] = a
	}
	return out
}

func newTransferID() string { return core.NewID(core.PrefixTransfer) }

func postedSpec(ref string, postings ...Posting) TransferSpec {
	return TransferSpec{Reference: ref, Type: TypePosted, Environment: core.EnvTest, Asset: AssetUSDC, Postings: postings}
}

func pendingSpec(ref string, from, to string, amount int64, expiresAt time.Time) TransferSpec {
	return TransferSpec{Reference: ref, Type: TypePending, Environment: core.EnvTest, Asset: AssetUSDC,
		Postings: Move(from, to, amount), ExpiresAt: expiresAt}
}

func postSpec(ref, pendingID string, amount int64) TransferSpec {
	return TransferSpec{Reference: ref, Type: TypePostPending, Environment: core.EnvTest, PendingID: pendingID, Amount: amount}
}

func voidSpec(ref, pendingID string) TransferSpec {
	return TransferSpec{Reference: ref, Type: TypeVoidPending, Environment: core.EnvTest, PendingID: pendingID}
}

func reversalSpec(ref, reversedID string) TransferSpec {
	return TransferSpec{Reference: ref, Type: TypeReversal, Environment: core.EnvTest, ReversedID: reversedID}
}

// storedHold is a recorded PENDING transfer of amount from alice to bob, in the given status.
func storedHold(amount int64, expiresAt time.Time, status TransferStatus) *StoredTransfer {
	return &StoredTransfer{
		Transfer: Transfer{
			ID: newTransferID(), Reference: "hold:1", Type: TypePending, Environment: core.EnvTest,
			Asset: AssetUSDC, Postings: sortedPostings(Move(aliceID, bobID, amount)),
			ExpiresAt: expiresAt, CreatedAt: t0.Add(-time.Hour),
		},
		State: TransferState{Status: status},
	}
}

// storedMove is a recorded POSTED transfer of amount from alice to bob, in the given status.
func storedMove(amount int64, status TransferStatus) *StoredTransfer {
	return &StoredTransfer{
		Transfer: Transfer{
			ID: newTransferID(), Reference: "move:1", Type: TypePosted, Environment: core.EnvTest,
			Asset: AssetUSDC, Postings: sortedPostings(Move(aliceID, bobID, amount)), CreatedAt: t0.Add(-time.Hour),
		},
		State: TransferState{Status: status},
	}
}

// fataler is what codeOf needs of *testing.T and *rapid.T alike.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// codeOf returns the domain code of err, or "" for nil, failing the test on a foreign error.
func codeOf(t fataler, err error) core.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *core.Error", err)
	}
	return e.Code
}
