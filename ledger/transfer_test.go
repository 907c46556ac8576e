package ledger

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestTransferSpec_Validate(t *testing.T) {
	holdID := newTransferID()
	tests := []struct {
		name      string
		spec      TransferSpec
		wantCode  core.Code
		wantField string // a field VALIDATION_FAILED must name
	}{
		{name: "posted transfer is valid", spec: postedSpec("a:1", Move(aliceID, bobID, 1)...)},
		{name: "pending transfer is valid", spec: pendingSpec("a:1", aliceID, bobID, 1, t0)},
		{name: "post is valid", spec: postSpec("a:1", holdID, 5)},
		{name: "void is valid", spec: voidSpec("a:1", holdID)},
		{name: "reversal is valid", spec: reversalSpec("a:1", holdID)},
		{name: "reference is required", spec: postedSpec("", Move(aliceID, bobID, 1)...), wantCode: core.CodeValidationFailed, wantField: "reference"},
		{name: "reference refuses spaces", spec: postedSpec("a 1", Move(aliceID, bobID, 1)...), wantCode: core.CodeValidationFailed, wantField: "reference"},
		{name: "reference is bounded", spec: postedSpec(strings.Repeat("r", 256), Move(aliceID, bobID, 1)...), wantCode: core.CodeValidationFailed, wantField: "reference"},
		{name: "environment is required", spec: withEnv(postedSpec("a", Move(aliceID, bobID, 1)...), ""), wantCode: core.CodeValidationFailed, wantField: "environment"},
		{name: "type is required", spec: withType(postedSpec("a", Move(aliceID, bobID, 1)...), "SIDEWAYS"), wantCode: core.CodeValidationFailed, wantField: "type"},
		{name: "asset is required", spec: withAsset(postedSpec("a", Move(aliceID, bobID, 1)...), ""), wantCode: core.CodeValidationFailed, wantField: "asset"},
		{name: "one posting is not a transfer", spec: postedSpec("a", Posting{aliceID, 0}), wantCode: core.CodeValidationFailed, wantField: "postings"},
		{name: "too many postings", spec: postedSpec("a", manyPostings(MaxPostings+1)...), wantCode: core.CodeValidationFailed, wantField: "postings"},
		{name: "the most postings allowed", spec: postedSpec("a", manyPostings(MaxPostings)...)},
		{name: "zero amount is refused", spec: postedSpec("a", Posting{aliceID, 0}, Posting{bobID, 0}), wantCode: core.CodeValidationFailed, wantField: "postings[0].amount"},
		{name: "MinInt64 amount is refused", spec: postedSpec("a", Posting{aliceID, math.MinInt64}, Posting{bobID, 1}), wantCode: core.CodeValidationFailed, wantField: "postings[0].amount"},
		{name: "an account twice is refused", spec: postedSpec("a", Posting{aliceID, -2}, Posting{bobID, 1}, Posting{aliceID, 1}), wantCode: core.CodeValidationFailed, wantField: "postings[2].accountId"},
		{name: "account id must be an account id", spec: postedSpec("a", Move("trf_x", bobID, 1)...), wantCode: core.CodeValidationFailed, wantField: "postings[0].accountId"},
		{name: "unbalanced postings are refused", spec: postedSpec("a", Posting{aliceID, -2}, Posting{bobID, 1}), wantCode: core.CodeValidationFailed, wantField: "postings"},
		{name: "a sum that overflows is refused", spec: postedSpec("a", Posting{aliceID, math.MaxInt64}, Posting{bobID, 1}, Posting{worldID, -2}), wantCode: core.CodeAmountOverflow},
		{name: "a posted transfer does not expire", spec: withExpiry(postedSpec("a", Move(aliceID, bobID, 1)...), t0), wantCode: core.CodeValidationFailed, wantField: "expiresAt"},
		{name: "a posted transfer has no amount", spec: withAmount(postedSpec("a", Move(aliceID, bobID, 1)...), 1), wantCode: core.CodeValidationFailed, wantField: "amount"},
		{name: "a posted transfer has no pending id", spec: withPending(postedSpec("a", Move(aliceID, bobID, 1)...), holdID), wantCode: core.CodeValidationFailed, wantField: "pendingId"},
		{name: "a pending transfer has two legs", spec: withType(postedSpec("a", Posting{aliceID, -2}, Posting{bobID, 1}, Posting{feesID, 1}), TypePending), wantCode: core.CodeValidationFailed, wantField: "postings"},
		{name: "post needs a positive amount", spec: postSpec("a", holdID, 0), wantCode: core.CodeValidationFailed, wantField: "amount"},
		{name: "post needs a pending id", spec: postSpec("a", "", 1), wantCode: core.CodeValidationFailed, wantField: "pendingId"},
		{name: "post carries no postings", spec: withPostings(postSpec("a", holdID, 1), Move(aliceID, bobID, 1)), wantCode: core.CodeValidationFailed, wantField: "postings"},
		{name: "post carries no asset", spec: withAsset(postSpec("a", holdID, 1), AssetUSDC), wantCode: core.CodeValidationFailed, wantField: "asset"},
		{name: "void has no amount", spec: withAmount(voidSpec("a", holdID), 1), wantCode: core.CodeValidationFailed, wantField: "amount"},
		{name: "void has no reversed id", spec: withReversed(voidSpec("a", holdID), holdID), wantCode: core.CodeValidationFailed, wantField: "reversedId"},
		{name: "reversal needs a transfer id", spec: reversalSpec("a", "acc_x"), wantCode: core.CodeValidationFailed, wantField: "reversedId"},
		{name: "reversal has no pending id", spec: withPending(reversalSpec("a", holdID), holdID), wantCode: core.CodeValidationFailed, wantField: "pendingId"},
		{name: "metadata is bounded", spec: withMetadata(postedSpec("a", Move(aliceID, bobID, 1)...), manyEntries(MaxMetadataEntries+1)), wantCode: core.CodeValidationFailed, wantField: "metadata"},
		{name: "metadata values are bounded", spec: withMetadata(postedSpec("a", Move(aliceID, bobID, 1)...), map[string]string{"k": strings.Repeat("v", 513)}), wantCode: core.CodeValidationFailed, wantField: "metadata[k]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate()
			if got := codeOf(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if tc.wantField == "" {
				return
			}
			var e *core.Error
			errors.As(err, &e)
			fields, _ := e.Details["fields"].(map[string]any)
			if _, ok := fields[tc.wantField]; !ok {
				t.Fatalf("fields %v do not name %q", fields, tc.wantField)
			}
		})
	}
}

func TestTransferSpec_MustValidate(t *testing.T) {
	t.Run("a valid spec passes through", func(t *testing.T) {
		spec := postedSpec("a", Move(aliceID, bobID, 1)...)
		if got := spec.MustValidate(); got.Reference != "a" {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("unbalanced postings built by our own code panic", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		postedSpec("a", Posting{aliceID, -2}, Posting{bobID, 1}).MustValidate()
	})
}

func TestMove(t *testing.T) {
	got := Move(aliceID, bobID, 7)
	if len(got) != 2 || got[0] != (Posting{aliceID, -7}) || got[1] != (Posting{bobID, 7}) {
		t.Fatalf("Move = %v", got)
	}
	for _, tc := range []struct {
		name     string
		from, to string
		amount   int64
	}{{"zero amount", aliceID, bobID, 0}, {"negative amount", aliceID, bobID, -1}, {"self move", aliceID, aliceID, 1}} {
		t.Run(tc.name+" panics", func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			Move(tc.from, tc.to, tc.amount)
		})
	}
}

func manyPostings(n int) []Posting {
	out := make([]Posting, n)
	for i := range out {
		out[i] = Posting{core.NewID(core.PrefixAccount), 1}
	}
	out[n-1].Amount = -int64(n - 1)
	return out
}

func manyEntries(n int) map[string]string {
	out := map[string]string{}
	for i := 0; i < n; i++ {
		out[strings.Repeat("k", i+1)] = "v"
	}
	return out
}

func withEnv(s TransferSpec, env core.Environment) TransferSpec { s.Environment = env; return s }
func withType(s TransferSpec, typ TransferType) TransferSpec    { s.Type = typ; return s }
func withAsset(s TransferSpec, asset string) TransferSpec       { s.Asset = asset; return s }
func withAmount(s TransferSpec, amount int64) TransferSpec      { s.Amount = amount; return s }
func withPending(s TransferSpec, id string) TransferSpec        { s.PendingID = id; return s }
func withReversed(s TransferSpec, id string) TransferSpec       { s.ReversedID = id; return s }
func withExpiry(s TransferSpec, at time.Time) TransferSpec      { s.ExpiresAt = at; return s }
func withPostings(s TransferSpec, p []Posting) TransferSpec     { s.Postings = p; return s }
func withMetadata(s TransferSpec, m map[string]string) TransferSpec {
	s.Metadata = m
	return s
}
