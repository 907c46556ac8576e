package treasury

import (
	"math/big"
	"time"
)

// Reading is one bucket's live on-chain USDC balance; Readable false means the chain could not
// be read, and Balance must then never be used (it is not zero, it is unknown).
type Reading struct {
	Readable bool
	Balance  int64
}

// BucketView is a bucket with its live figures. Balance, DriftBaseUnits and DriftBps are nil
// when unknown: the balance when the bucket is unreadable, the drift while any bucket is.
type BucketView struct {
	Bucket         Bucket
	Balance        *int64
	DriftBaseUnits *int64
	DriftBps       *int
	AccruedYield   int64
}

// View is an account with live figures; Total is nil while any bucket is unreadable.
type View struct {
	Account Account
	Buckets []BucketView
	Total   *int64
}

// BuildView computes the live view from one reading per bucket (in bucket order) and the
// yield accrued per bucket id. Drift is the balance less the target share of the total
// (target share rounded down to the base unit), and in basis points the actual share (rounded
// down) less the target; both are suppressed until every bucket is readable, because a share
// of an unknown total is unknown. An account holding nothing has zero drift.
func BuildView(a Account, readings []Reading, accrued map[string]int64) View {
	v := View{Account: a, Buckets: make([]BucketView, len(a.Buckets))}
	total, allReadable := sum(readings)
	for i, b := range a.Buckets {
		bv := BucketView{Bucket: b, AccruedYield: accrued[b.ID]}
		if i < len(readings) && readings[i].Readable {
			bal := readings[i].Balance
			bv.Balance = &bal
		}
		if allReadable {
			target := targetShare(total, b.TargetBps)
			drift := *bv.Balance - target
			bps := 0
			if total > 0 {
				bps = int(new(big.Int).Div(new(big.Int).Mul(big.NewInt(*bv.Balance), big.NewInt(TotalBps)), big.NewInt(total)).Int64()) - b.TargetBps
			}
			bv.DriftBaseUnits, bv.DriftBps = &drift, &bps
		}
		v.Buckets[i] = bv
	}
	if allReadable {
		v.Total = &total
	}
	return v
}

// sum adds the readings; ok is false when any is unreadable or there are fewer readings than
// buckets would need (the caller passes one per bucket).
func sum(readings []Reading) (int64, bool) {
	var total int64
	for _, r := range readings {
		if !r.Readable {
			return 0, false
		}
		total += r.Balance
	}
	return total, len(readings) > 0
}

// targetShare is total × bps / 10000, rounded down, computed without overflow.
func targetShare(total int64, bps int) int64 {
	return new(big.Int).Div(new(big.Int).Mul(big.NewInt(total), big.NewInt(int64(bps))), big.NewInt(TotalBps)).Int64()
}

// Decision is what a rule does in one window: Skip with a reason (a balance it needs is
// unreadable; the window is recorded, nothing is treated as zero), or a transfer of Amount from
// Source to Dest, or nothing (Amount 0) when the condition does not hold.
type Decision struct {
	Skip     string
	SourceID string
	DestID   string
	Amount   int64
}

// SkipUnreadable is the skip reason of a window whose balances could not be read.
const SkipUnreadable = "BALANCE_UNREADABLE"

// Decide evaluates a rule against one reading per bucket of a (in bucket order).
func Decide(r Rule, a Account, readings []Reading) Decision {
	at := func(id string) (Reading, bool) {
		for i, b := range a.Buckets {
			if b.ID == id && i < len(readings) {
				return readings[i], true
			}
		}
		return Reading{}, false
	}
	switch r.Type {
	case RuleSweepExcess, RuleTopUp:
		src, ok1 := at(r.SourceBucketID)
		dst, ok2 := at(r.DestBucketID)
		if !ok1 || !ok2 || !src.Readable || !dst.Readable {
			return Decision{Skip: SkipUnreadable}
		}
		d := Decision{SourceID: r.SourceBucketID, DestID: r.DestBucketID}
		if r.Type == RuleSweepExcess {
			if r.Threshold != nil && src.Balance > *r.Threshold {
				d.Amount = src.Balance - *r.Threshold
			}
			return d
		}
		if r.Target != nil && dst.Balance < r.Trigger() {
			d.Amount = min(*r.Target-dst.Balance, src.Balance)
		}
		return d
	case RuleRebalanceToTarget:
		return decideRebalance(r, a, readings)
	}
	return Decision{}
}

// decideRebalance moves from the most-over-target bucket to the most-under-target one the
// smaller of the two gaps: one transfer per fire, so a later window continues the work.
func decideRebalance(r Rule, a Account, readings []Reading) Decision {
	total, ok := sum(readings)
	if !ok || len(readings) != len(a.Buckets) {
		return Decision{Skip: SkipUnreadable}
	}
	overIdx, underIdx := -1, -1
	var over, under int64
	for i, b := range a.Buckets {
		gap := readings[i].Balance - targetShare(total, b.TargetBps)
		if gap > over {
			over, overIdx = gap, i
		}
		if -gap > under {
			under, underIdx = -gap, i
		}
	}
	if overIdx < 0 || underIdx < 0 {
		return Decision{}
	}
	amount := min(over, under)
	if r.Threshold != nil && amount < *r.Threshold {
		amount = 0
	}
	return Decision{SourceID: a.Buckets[overIdx].ID, DestID: a.Buckets[underIdx].ID, Amount: amount}
}

// DailyYield is one day of simulated yield in base units: balance × apyBps / 10000 / 365,
// rounded down to the base unit (the platform never pays a fraction it cannot settle).
func DailyYield(balance int64, apyBps int) int64 {
	if balance <= 0 || apyBps <= 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(balance), big.NewInt(int64(apyBps)))
	return n.Div(n, big.NewInt(TotalBps*365)).Int64()
}

// Day is the UTC calendar day of an instant, as the accrual reference names it.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }
