// Package treasury holds the domain of treasury accounts: bucket definitions, rules, sweeps,
// the live view of balances and drift, the rule decisions and the simulated yield formula.
// Everything here is pure; the capability in app/treasuries reads the chain and the store.
package treasury

import (
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Codes of the treasury capability.
const (
	CodeAccountNotFound core.Code = "TREASURY_ACCOUNT_NOT_FOUND"
	CodeRuleNotFound    core.Code = "TREASURY_RULE_NOT_FOUND"
)

// Limits of docs/api.md (Limits) and of this service.
const (
	MinBuckets   = 1
	MaxBuckets   = 8
	TotalBps     = 10000
	MaxApyBps    = 10000 // a simulated APY above 100 % is refused as a likely unit mistake
	MaxNameBytes = 100
	// DefaultIntervalSeconds is docs/api.md's default rule interval.
	DefaultIntervalSeconds = 3600
	// MinIntervalSeconds is the shortest rule interval: the runner job ticks every minute, so a
	// shorter interval could not be honoured.
	MinIntervalSeconds = 60
	// MaxIntervalSeconds is thirty days.
	MaxIntervalSeconds = 30 * 24 * 3600
	// MaxRulesPerAccount bounds rules an account holds.
	MaxRulesPerAccount = 50
	// MaxAdvanceDays bounds one call of the sandbox clock helper.
	MaxAdvanceDays = 366
	// MaxClockOffsetDays bounds how far ahead of the wall clock the helper moves an account in
	// all: a hundred years of 366 days. Unbounded, the offset ran past what an instant holds
	// and the account's simulated clock wrapped into the past.
	MaxClockOffsetDays = 100 * MaxAdvanceDays
)

// Kind is a bucket's role.
type Kind string

// Bucket kinds of docs/api.md.
const (
	KindOperating Kind = "OPERATING"
	KindReserve   Kind = "RESERVE"
	KindYield     Kind = "YIELD"
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindOperating || k == KindReserve || k == KindYield }

// RuleType is what a rule does when it fires.
type RuleType string

// Rule types of docs/api.md.
const (
	RuleSweepExcess       RuleType = "SWEEP_EXCESS"
	RuleTopUp             RuleType = "TOP_UP"
	RuleRebalanceToTarget RuleType = "REBALANCE_TO_TARGET"
)

// Valid reports whether t is a known rule type.
func (t RuleType) Valid() bool {
	return t == RuleSweepExcess || t == RuleTopUp || t == RuleRebalanceToTarget
}

// Account is a treasury account: a set of bucket Safes sharing owners and threshold.
// ClockOffsetDays is the sandbox clock helper's offset: the account lives that many days ahead
// of the wall clock for accrual and the rule runner.
type Account struct {
	ID              string
	TenantID        string
	Environment     core.Environment
	Name            string
	ChainID         int64
	Threshold       int
	ClockOffsetDays int
	CreatedAt       time.Time
	Buckets         []Bucket
}

// Now is the account's simulated instant for a wall-clock instant.
func (a Account) Now(wall time.Time) time.Time {
	return wall.UTC().AddDate(0, 0, a.ClockOffsetDays)
}

// Bucket finds one of the account's buckets.
func (a Account) Bucket(id string) (Bucket, bool) {
	for _, b := range a.Buckets {
		if b.ID == id {
			return b, true
		}
	}
	return Bucket{}, false
}

// Bucket is one Safe of an account with its target share.
type Bucket struct {
	ID        string
	AccountID string
	WalletID  string
	// Address and WalletStatus are the bucket wallet's, read back with the bucket.
	Address      string
	WalletStatus string
	Name         string
	Kind         Kind
	TargetBps    int
	ApyBps       int
	Position     int
}

// BucketInput is one bucket of a create request.
type BucketInput struct {
	Name      string
	Kind      string
	TargetBps *int
	ApyBps    *int
}

// ValidateBuckets checks 1 to 8 buckets, each named with a known kind, targets that sum to
// exactly 10000 basis points and APYs between 0 and 10000. Every problem names its field.
func ValidateBuckets(in []BucketInput, errs core.FieldErrors) []Bucket {
	if len(in) < MinBuckets || len(in) > MaxBuckets {
		errs.Add("buckets", fmt.Sprintf("must list %d to %d buckets, got %d", MinBuckets, MaxBuckets, len(in)))
		return nil
	}
	out := make([]Bucket, len(in))
	sum := 0
	names := map[string]bool{}
	for i, b := range in {
		field := fmt.Sprintf("buckets[%d]", i)
		name := strings.TrimSpace(b.Name)
		switch {
		case name == "":
			errs.Add(field+".name", "is required")
		case len(name) > MaxNameBytes:
			errs.Add(field+".name", fmt.Sprintf("must be at most %d characters", MaxNameBytes))
		case names[strings.ToLower(name)]:
			errs.Add(field+".name", "is used by another bucket of the account")
		}
		names[strings.ToLower(name)] = true
		kind := Kind(strings.ToUpper(strings.TrimSpace(b.Kind)))
		if !kind.Valid() {
			errs.Add(field+".kind", "must be OPERATING, RESERVE or YIELD")
		}
		target := 0
		switch {
		case b.TargetBps == nil:
			errs.Add(field+".targetBps", "is required")
		case *b.TargetBps < 0 || *b.TargetBps > TotalBps:
			errs.Add(field+".targetBps", "must be between 0 and 10000")
		default:
			target = *b.TargetBps
		}
		sum += target
		apy := 0
		if b.ApyBps != nil {
			if *b.ApyBps < 0 || *b.ApyBps > MaxApyBps {
				errs.Add(field+".apyBps", "must be between 0 and 10000")
			} else {
				apy = *b.ApyBps
			}
		}
		out[i] = Bucket{Name: name, Kind: kind, TargetBps: target, ApyBps: apy, Position: i}
	}
	if len(errs) == 0 && sum != TotalBps {
		errs.Add("buckets", fmt.Sprintf("targetBps must sum to exactly 10000 across the buckets, got %d: every unit of the account has a home", sum))
	}
	return out
}

// ValidateName checks an account name.
func ValidateName(name string, errs core.FieldErrors) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		errs.Add("name", "is required")
	case len(name) > MaxNameBytes:
		errs.Add("name", fmt.Sprintf("must be at most %d characters", MaxNameBytes))
	case core.TextProblem(name) != "":
		errs.Add("name", core.TextProblem(name))
	}
	return name
}
