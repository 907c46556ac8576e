package treasury

import (
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Rule moves money between an account's buckets when its condition holds. Amounts are USD
// base units; nil means not set.
type Rule struct {
	ID              string
	AccountID       string
	TenantID        string
	Environment     core.Environment
	Type            RuleType
	SourceBucketID  string // "" for REBALANCE_TO_TARGET
	DestBucketID    string // "" for REBALANCE_TO_TARGET
	Threshold       *int64
	Target          *int64
	IntervalSeconds int
	Enabled         bool
	LastFiredAt     *time.Time
	// LastEvaluatedAt is the start of the rule's current window (nil: its creation).
	LastEvaluatedAt *time.Time
	// LastSkippedAt and LastSkipReason record the last window the runner skipped because a
	// balance could not be read (or a bucket could not pay yet).
	LastSkippedAt  *time.Time
	LastSkipReason string
	CreatedAt      time.Time
	DeletedAt      *time.Time
}

// Due reports whether the rule's interval has passed at the account's simulated instant now.
func (r Rule) Due(now time.Time) bool {
	start := r.CreatedAt
	if r.LastEvaluatedAt != nil {
		start = *r.LastEvaluatedAt
	}
	return r.Enabled && r.DeletedAt == nil && !now.Before(start.Add(time.Duration(r.IntervalSeconds)*time.Second))
}

// RuleInput is a create request, amounts still decimal strings.
type RuleInput struct {
	Type            string
	SourceBucketID  *string
	DestBucketID    *string
	ThresholdUsd    *string
	TargetUsd       *string
	IntervalSeconds *int
	Enabled         *bool
}

// RulePatch is a PATCH request: Set* says the field was sent (a nil value with Set true is an
// explicit null, which clears an amount).
type RulePatch struct {
	SetThreshold, SetTarget bool
	ThresholdUsd, TargetUsd *string
	IntervalSeconds         *int
	Enabled                 *bool
}

// NewRule validates a create request against the account and returns the rule.
func NewRule(id string, a Account, in RuleInput, now time.Time) (Rule, error) {
	errs := core.FieldErrors{}
	r := Rule{ID: id, AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		Type: RuleType(strings.ToUpper(strings.TrimSpace(in.Type))), IntervalSeconds: DefaultIntervalSeconds,
		Enabled: true, CreatedAt: now}
	if in.Type == "" {
		errs.Add("type", "is required")
	} else if !r.Type.Valid() {
		errs.Add("type", "must be SWEEP_EXCESS, TOP_UP or REBALANCE_TO_TARGET")
	}
	if in.SourceBucketID != nil {
		r.SourceBucketID = strings.TrimSpace(*in.SourceBucketID)
	}
	if in.DestBucketID != nil {
		r.DestBucketID = strings.TrimSpace(*in.DestBucketID)
	}
	r.Threshold = parseOptionalUSD("thresholdUsd", in.ThresholdUsd, errs)
	r.Target = parseOptionalUSD("targetUsd", in.TargetUsd, errs)
	if in.IntervalSeconds != nil {
		r.IntervalSeconds = *in.IntervalSeconds
	}
	if in.Enabled != nil {
		r.Enabled = *in.Enabled
	}
	if len(errs) > 0 {
		return Rule{}, errs.Err()
	}
	return r, r.validate(a)
}

// Apply returns the rule with a PATCH applied and checks the result as a whole.
func (r Rule) Apply(a Account, p RulePatch) (Rule, error) {
	errs := core.FieldErrors{}
	if p.SetThreshold {
		r.Threshold = parseOptionalUSD("thresholdUsd", p.ThresholdUsd, errs)
	}
	if p.SetTarget {
		r.Target = parseOptionalUSD("targetUsd", p.TargetUsd, errs)
	}
	if p.IntervalSeconds != nil {
		r.IntervalSeconds = *p.IntervalSeconds
	}
	if p.Enabled != nil {
		r.Enabled = *p.Enabled
	}
	if len(errs) > 0 {
		return Rule{}, errs.Err()
	}
	return r, r.validate(a)
}

func parseOptionalUSD(field string, s *string, errs core.FieldErrors) *int64 {
	if s == nil {
		return nil
	}
	v, err := core.ParseUSD(field, *s)
	if err != nil {
		errs.Add(field, reasonOf(err))
		return nil
	}
	return &v
}

func reasonOf(err error) string {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			for _, v := range fields {
				if s, ok := v.(string); ok {
					return s
				}
			}
		}
	}
	return err.Error()
}

// validate checks the rule's shape per type: the buckets it names belong to the account and
// differ, and the amounts it needs are present.
func (r Rule) validate(a Account) error {
	errs := core.FieldErrors{}
	if r.IntervalSeconds < MinIntervalSeconds || r.IntervalSeconds > MaxIntervalSeconds {
		errs.Add("intervalSeconds", fmt.Sprintf("must be between %d and %d", MinIntervalSeconds, MaxIntervalSeconds))
	}
	if len(a.Buckets) < 2 {
		errs.Add("type", "a rule moves money between buckets: the account has only one")
		return errs.Err()
	}
	switch r.Type {
	case RuleRebalanceToTarget:
		if r.SourceBucketID != "" {
			errs.Add("sourceBucketId", "must be absent for REBALANCE_TO_TARGET: the runner picks the most-over-target bucket")
		}
		if r.DestBucketID != "" {
			errs.Add("destBucketId", "must be absent for REBALANCE_TO_TARGET: the runner picks the most-under-target bucket")
		}
		if r.Target != nil {
			errs.Add("targetUsd", "must be null for REBALANCE_TO_TARGET (thresholdUsd is the smallest transfer worth proposing)")
		}
	case RuleSweepExcess, RuleTopUp:
		checkBucket(a, "sourceBucketId", r.SourceBucketID, errs)
		checkBucket(a, "destBucketId", r.DestBucketID, errs)
		if r.SourceBucketID != "" && r.SourceBucketID == r.DestBucketID {
			errs.Add("destBucketId", "must differ from sourceBucketId")
		}
		if r.Type == RuleSweepExcess {
			if r.Threshold == nil {
				errs.Add("thresholdUsd", "is required for SWEEP_EXCESS: the source keeps this much, the excess moves")
			}
			if r.Target != nil {
				errs.Add("targetUsd", "must be null for SWEEP_EXCESS")
			}
		} else {
			switch {
			case r.Target == nil:
				errs.Add("targetUsd", "is required for TOP_UP: the destination is refilled to this amount")
			case *r.Target == 0:
				errs.Add("targetUsd", "must be greater than zero")
			case r.Threshold != nil && *r.Threshold > *r.Target:
				errs.Add("thresholdUsd", "must not exceed targetUsd: the refill trigger is at or below the target")
			}
		}
	}
	return errs.Err()
}

func checkBucket(a Account, field, id string, errs core.FieldErrors) {
	if id == "" {
		errs.Add(field, "is required")
		return
	}
	if _, ok := a.Bucket(id); !ok {
		errs.Add(field, "must be a bucket of this account")
	}
}

// Trigger is TOP_UP's refill trigger: thresholdUsd, defaulting to targetUsd.
func (r Rule) Trigger() int64 {
	if r.Threshold != nil {
		return *r.Threshold
	}
	if r.Target != nil {
		return *r.Target
	}
	return 0
}

// Sweep is a proposed bucket-to-bucket payment. Status is the sweep's own record (PROPOSED);
// the live status follows its linked Safe payment (LiveStatus).
type Sweep struct {
	ID              string
	AccountID       string
	TenantID        string
	Environment     core.Environment
	RuleID          string // "" for a manual sweep
	SourceBucketID  string
	DestBucketID    string
	AmountBaseUnits int64
	Status          string
	PaymentID       string
	ProposedBy      string // the owner address of a manual sweep, "" when not given
	CreatedAt       time.Time
}

// SweepProposed is the status a sweep is recorded with.
const SweepProposed = "PROPOSED"

// LiveStatus is a sweep's status as its payment stands: PROPOSED until the payment is final,
// then COMPLETED, FAILED or CANCELLED.
func LiveStatus(paymentStatus string) string {
	switch paymentStatus {
	case "COMPLETED", "FAILED", "CANCELLED":
		return paymentStatus
	}
	return SweepProposed
}

// PaymentPending reports whether a linked payment can still move money.
func PaymentPending(paymentStatus string) bool { return LiveStatus(paymentStatus) == SweepProposed }
