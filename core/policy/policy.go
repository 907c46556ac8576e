// Package policy holds spend policies (docs/api.md Policy): the schemaVersion 1 document, its
// compilation to a canonical intermediate representation (IR) whose sha256 pins every version,
// and the deterministic evaluation engine with its rule trace. Everything here is pure: the same
// input always yields the same IR, sha256 and verdict.
package policy

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Codes of spend policies beyond the shared ones (the HTTP adapter maps them to statuses).
const (
	CodePolicyNotFound     core.Code = "POLICY_NOT_FOUND"
	CodeAttachmentNotFound core.Code = "ATTACHMENT_NOT_FOUND"
	// CodeSubjectAttached: the subject already has an active policy (one per subject).
	CodeSubjectAttached core.Code = "POLICY_SUBJECT_ATTACHED"
	// CodeDenied: the policy declined a gated transaction in enforce mode.
	CodeDenied core.Code = "POLICY_DENIED"
	// CodeUnavailable: the policy subsystem failed in enforce mode (fails closed).
	CodeUnavailable core.Code = "POLICY_UNAVAILABLE"
)

// Status of a policy. Archived policies keep their versions and decisions for audit.
type Status string

const (
	StatusActive   Status = "ACTIVE"
	StatusArchived Status = "ARCHIVED"
)

// SubjectType names what a policy is attached to.
type SubjectType string

const (
	SubjectWallet          SubjectType = "wallet"
	SubjectCard            SubjectType = "card"
	SubjectAgent           SubjectType = "agent"
	SubjectTreasuryAccount SubjectType = "treasury_account"
	// SubjectServiceBalance is a tenant's USDC service balance (docs/decisions/ledger.md) of one environment; its
	// subject id is the tenant's own id. It gates INTERNAL_BALANCE-funded off-ramp payments
	// (docs/decisions/README.md, "Off-ramp spend policies").
	SubjectServiceBalance SubjectType = "service_balance"
)

// ParseSubjectType accepts the four docs/api.md subject types and service_balance.
func ParseSubjectType(field, s string) (SubjectType, error) {
	switch t := SubjectType(s); t {
	case SubjectWallet, SubjectCard, SubjectAgent, SubjectTreasuryAccount, SubjectServiceBalance:
		return t, nil
	case "":
		return "", core.Invalid(field, "is required")
	}
	return "", core.Invalid(field, "must be one of wallet, card, agent, treasury_account, service_balance")
}

// Policy is a named, versioned rule set of one tenant and environment.
type Policy struct {
	ID              string
	TenantID        string
	Environment     core.Environment
	Name            string
	Status          Status
	ActiveVersionID string
	ActiveVersion   int
	CreatedAt       time.Time
	ArchivedAt      *time.Time
}

// Version is one immutable compiled document of a policy.
type Version struct {
	ID        string
	PolicyID  string
	Version   int
	IR        IR
	SHA256    string // hex sha256 of IR.Canonical()
	Document  []byte // the document as submitted, kept for audit
	CreatedAt time.Time
}

// NewVersion compiles doc into version number n of policy policyID.
func NewVersion(id, policyID string, n int, doc Document, raw []byte, now time.Time) Version {
	ir := Compile(doc)
	return Version{ID: id, PolicyID: policyID, Version: n, IR: ir, SHA256: ir.SHA256(),
		Document: append([]byte(nil), raw...), CreatedAt: now}
}

// Activate points the policy at v (the active pointer only ever moves forward).
func (p Policy) Activate(v Version) (Policy, error) {
	if p.Status != StatusActive {
		return p, core.E(core.CodeInvalidState, "policy %s is %s: it takes no new versions", p.ID, p.Status).
			WithDetails(map[string]any{"status": string(p.Status)})
	}
	if v.Version != p.ActiveVersion+1 {
		return p, core.E(core.CodeInvalidState, "policy %s: version %d does not follow %d", p.ID, v.Version, p.ActiveVersion)
	}
	p.ActiveVersionID, p.ActiveVersion = v.ID, v.Version
	return p, nil
}

// Archive marks the policy archived; archiving twice is a no-op that keeps the first time.
func (p Policy) Archive(now time.Time) Policy {
	if p.Status == StatusArchived {
		return p
	}
	p.Status = StatusArchived
	p.ArchivedAt = &now
	return p
}

// Attachment binds a policy to one subject; DetachedAt is set once detached.
type Attachment struct {
	ID          string
	TenantID    string
	Environment core.Environment
	PolicyID    string
	SubjectType SubjectType
	SubjectID   string
	AttachedAt  time.Time
	DetachedAt  *time.Time
}

// Source says what produced a decision.
type Source string

const (
	SourceEvaluate Source = "EVALUATE" // POST /v1/policies/evaluate (dry run)
	SourcePayment  Source = "PAYMENT"  // the gate on Safe payment propose
	SourceOfframp  Source = "OFFRAMP"  // the off-ramp policy composer (sender's service balance)
	SourceCard     Source = "CARD"     // the gate on card authorizations
)

// Decision is one evaluation, pinned to the exact version (and sha256) that produced it.
type Decision struct {
	ID            string
	TenantID      string
	Environment   core.Environment
	PolicyID      string
	VersionID     string
	PolicyVersion int
	SHA256        string
	SubjectType   SubjectType // "" when evaluated by policyId
	SubjectID     string
	Source        Source
	ReferenceID   string // the payment (Safe or off-ramp) of a gated decision
	Mode          Mode   // the enforcement mode of a gated decision; "" for a dry run
	Transaction   Transaction
	Verdict       Verdict
	// Blocked reports whether the decision stopped the transaction (enforce mode and deny).
	Blocked   bool
	CreatedAt time.Time
}

// Mode is the rollout flag POLICY_ENFORCEMENT.
type Mode string

const (
	ModeOff     Mode = "off"     // gating skipped
	ModeLog     Mode = "log"     // evaluated and recorded; a would-be decline proceeds
	ModeEnforce Mode = "enforce" // a deny blocks
)

// ParseMode reads POLICY_ENFORCEMENT; empty is the default, log.
func ParseMode(s string) (Mode, bool) {
	switch m := Mode(s); m {
	case ModeOff, ModeLog, ModeEnforce:
		return m, true
	case "":
		return ModeLog, true
	}
	return "", false
}
