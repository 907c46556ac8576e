package ledger

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestReplayOrConflict(t *testing.T) {
	accounts := testAccounts()
	hold := storedHold(60, time.Time{}, StatusPending)
	record := func(spec TransferSpec, target *StoredTransfer) Transfer {
		balances := map[string]Balance{aliceID: {Posted: 100, PendingDebits: 60}, bobID: {PendingCredits: 60}, feesID: {}}
		res, err := Apply(ApplyInput{Spec: spec, TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: balances, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		return res.Transfer
	}
	move := postedSpec("m:1", Posting{aliceID, -10}, Posting{bobID, 9}, Posting{feesID, 1})
	storedMove := record(withMetadata(move, map[string]string{"paymentId": "ofp_1"}), nil)
	post := postSpec("p:1", hold.Transfer.ID, 25)
	storedPost := record(post, hold)
	storedHoldTransfer := record(pendingSpec("h:1", aliceID, bobID, 5, t0.Add(time.Hour)), nil)

	tests := []struct {
		name     string
		spec     TransferSpec
		stored   Transfer
		wantCode core.Code
	}{
		{"identical content replays", move, storedMove, ""},
		{"postings in another order replay", postedSpec("m:1", Posting{feesID, 1}, Posting{bobID, 9}, Posting{aliceID, -10}), storedMove, ""},
		{"other metadata replays", withMetadata(move, map[string]string{"requestId": "req_2"}), storedMove, ""},
		{"a recomputed expiry replays", pendingSpec("h:1", aliceID, bobID, 5, t0.Add(2*time.Hour)), storedHoldTransfer, ""},
		{"the same post replays", post, storedPost, ""},
		{"another amount conflicts", postedSpec("m:1", Posting{aliceID, -11}, Posting{bobID, 10}, Posting{feesID, 1}), storedMove, core.CodeLedgerReferenceConflict},
		{"another account conflicts", postedSpec("m:1", Posting{aliceID, -10}, Posting{worldID, 9}, Posting{feesID, 1}), storedMove, core.CodeLedgerReferenceConflict},
		{"another type conflicts", withType(move, TypePending), storedMove, core.CodeLedgerReferenceConflict},
		{"another asset conflicts", withAsset(move, AssetUSD), storedMove, core.CodeLedgerReferenceConflict},
		{"another post amount conflicts", postSpec("p:1", hold.Transfer.ID, 26), storedPost, core.CodeLedgerReferenceConflict},
		{"another hold conflicts", postSpec("p:1", newTransferID(), 25), storedPost, core.CodeLedgerReferenceConflict},
		{"a void where a post was recorded conflicts", voidSpec("p:1", hold.Transfer.ID), storedPost, core.CodeLedgerReferenceConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReplayOrConflict(tc.spec, tc.stored)
			if code := codeOf(t, err); code != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", code, tc.wantCode, err)
			}
			if err == nil && got.ID != tc.stored.ID {
				t.Fatalf("replay returned %s, want the stored %s", got.ID, tc.stored.ID)
			}
		})
	}
	t.Run("another reference is a store bug and panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		_, _ = ReplayOrConflict(postedSpec("m:2", Move(aliceID, bobID, 1)...), storedMove)
	})
}
