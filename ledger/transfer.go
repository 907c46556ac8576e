package ledger

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/core"
)

// TransferType says how a transfer changes balances. See the package documentation.
type TransferType string

const (
	TypePosted      TransferType = "POSTED"
	TypePending     TransferType = "PENDING"
	TypePostPending TransferType = "POST_PENDING"
	TypeVoidPending TransferType = "VOID_PENDING"
	TypeReversal    TransferType = "REVERSAL"
)

// Valid reports whether t is one of the five transfer types.
func (t TransferType) Valid() bool {
	switch t {
	case TypePosted, TypePending, TypePostPending, TypeVoidPending, TypeReversal:
		return true
	}
	return false
}

// resolvesTarget reports whether the type acts on an earlier transfer and derives its postings
// from it, rather than carrying postings of its own.
func (t TransferType) resolvesTarget() bool {
	return t == TypePostPending || t == TypeVoidPending || t == TypeReversal
}

// Limits that keep a transfer bounded (docs/architecture.md: everything has a bound).
const (
	MaxPostings           = 64
	MaxMetadataEntries    = 32
	MaxMetadataKeyBytes   = 64
	MaxMetadataValueBytes = 512
)

// Posting is one leg of a transfer: Amount > 0 credits AccountID, Amount < 0 debits it.
type Posting struct {
	AccountID string
	Amount    int64
}

// Move returns the two postings that move amount from one account to another. It is for our
// own code building a transfer, so a non-positive amount or a self-move panics.
func Move(fromAccountID, toAccountID string, amount int64) []Posting {
	if amount <= 0 || fromAccountID == toAccountID {
		panic(fmt.Sprintf("ledger: Move(%q, %q, %d): amount must be positive between two accounts",
			fromAccountID, toAccountID, amount))
	}
	return []Posting{{AccountID: fromAccountID, Amount: -amount}, {AccountID: toAccountID, Amount: amount}}
}

// TransferSpec is a request to record a transfer. Which fields it carries depends on Type:
//
//   - POSTED: Asset and Postings (2..MaxPostings, one asset, summing to zero).
//   - PENDING: Asset and exactly two Postings (one debit, one credit); ExpiresAt optional.
//     Two legs keep a partial post well defined, as in TigerBeetle.
//   - POST_PENDING: PendingID and Amount (1..the hold's amount). Postings are derived.
//   - VOID_PENDING: PendingID. Postings are derived (what the void releases).
//   - REVERSAL: ReversedID. Postings are derived (the negated original).
//
// Every other field must stay zero, so that a request means one thing only. Reference is the
// idempotency key, unique per environment. Metadata links the transfer to its business object.
type TransferSpec struct {
	Reference   string
	Type        TransferType
	Environment core.Environment
	Asset       string
	PendingID   string
	ReversedID  string
	Amount      int64
	ExpiresAt   time.Time
	Postings    []Posting
	Metadata    map[string]string
	// TargetHome is the home (Account.Home) of the target transfer, when the caller knows it:
	// it names the target's rows, so the store locks the target where it lives instead of
	// asking every home for it. It is a routing hint, not content: a replay does not compare it,
	// and "" means "not told" (the store then finds the home by the target's id alone).
	TargetHome string
}

// TargetID is the transfer this spec acts on (the hold, or the reversed transfer), or "".
func (s TransferSpec) TargetID() string {
	if s.PendingID != "" {
		return s.PendingID
	}
	return s.ReversedID
}

// Transfer is a recorded, immutable transfer. Its postings are sorted by account id and always
// explicit, also for the derived types, so a journal export needs no other row to read it:
// POST_PENDING's postings are what was posted, VOID_PENDING's are what was released, and
// REVERSAL's are the original's negated. Amount is the posted amount of a POST_PENDING, else 0.
type Transfer struct {
	ID          string
	Reference   string
	Type        TransferType
	Environment core.Environment
	Asset       string
	PendingID   string
	ReversedID  string
	Amount      int64
	ExpiresAt   time.Time // Zero: the hold never expires. Only PENDING transfers carry one.
	Postings    []Posting
	Metadata    map[string]string
	CreatedAt   time.Time
}

// TargetID is the transfer this one acted on, or "".
func (t Transfer) TargetID() string {
	if t.PendingID != "" {
		return t.PendingID
	}
	return t.ReversedID
}

// HoldAmount is the amount a PENDING transfer reserves (its credited leg), else 0.
func (t Transfer) HoldAmount() int64 {
	if t.Type != TypePending {
		return 0
	}
	for _, p := range t.Postings {
		if p.Amount > 0 {
			return p.Amount
		}
	}
	return 0
}

// IsExpired reports whether a hold has expired at now. A hold expires at its ExpiresAt
// instant exactly; from then on it can only be voided. Expiry alone releases nothing: an
// expired hold keeps reserving until a VOID_PENDING records the release, so balances are
// always the sum of recorded transfers.
func IsExpired(t Transfer, now time.Time) bool {
	return t.Type == TypePending && !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// TransferStatus is the mutable part of a stored transfer.
type TransferStatus string

const (
	// StatusPending is an open hold: it reserves funds and may be posted or voided.
	StatusPending TransferStatus = "PENDING"
	// StatusPosted is a transfer that moved posted balances; a POSTED or POST_PENDING one may
	// still be reversed. A hold that was posted is also POSTED.
	StatusPosted TransferStatus = "POSTED"
	// StatusVoided is a released hold, and a VOID_PENDING record itself.
	StatusVoided TransferStatus = "VOIDED"
	// StatusReversed is a transfer that a REVERSAL negated.
	StatusReversed TransferStatus = "REVERSED"
)

// TransferState is what the store keeps beside an immutable transfer and updates under lock.
// ResolvedByID names the transfer that posted, voided or reversed it.
type TransferState struct {
	Status       TransferStatus
	ResolvedByID string
}

// StoredTransfer is a transfer with its current state, as the store loads it.
type StoredTransfer struct {
	Transfer Transfer
	State    TransferState
}

// initialState is the state a transfer is born with.
func initialState(t TransferType) TransferState {
	switch t {
	case TypePending:
		return TransferState{Status: StatusPending}
	case TypeVoidPending:
		return TransferState{Status: StatusVoided}
	}
	return TransferState{Status: StatusPosted}
}

// Validate checks a spec that may come from outside our code (an operator request, a replayed
// job payload). It answers VALIDATION_FAILED naming every bad field, or AMOUNT_OVERFLOW when
// the postings cannot even be summed. It does not need the accounts; Apply checks those.
func (s TransferSpec) Validate() error {
	f := core.FieldErrors{}
	if !validReference(s.Reference) {
		f.Add("reference", "must be 1 to 255 printable bytes without spaces")
	}
	if !s.Environment.Valid() {
		f.Add("environment", "must be TEST or LIVE")
	}
	if !s.Type.Valid() {
		f.Add("type", "must be POSTED, PENDING, POST_PENDING, VOID_PENDING or REVERSAL")
	}
	validateMetadata(f, s.Metadata)
	if s.Type.resolvesTarget() {
		validateResolvingSpec(f, s)
	} else if s.Type.Valid() {
		validateCarryingSpec(f, s)
	}
	if err := f.Err(); err != nil {
		return err
	}
	if !s.Type.resolvesTarget() {
		return checkSumZero(s.Postings)
	}
	return nil
}

// MustValidate is Validate for specs our own code builds from constants and loaded state: an
// invalid one there is a programming error (docs/architecture.md), so it panics with the reason. Apply
// itself never panics on a bad spec; it returns the Validate error.
func (s TransferSpec) MustValidate() TransferSpec {
	if err := s.Validate(); err != nil {
		panic("ledger: invalid transfer spec built by our own code (" + s.Reference + "): " + err.Error())
	}
	return s
}

// validateCarryingSpec checks POSTED and PENDING specs, which carry their own postings.
func validateCarryingSpec(f core.FieldErrors, s TransferSpec) {
	if !validAsset(s.Asset) {
		f.Add("asset", "must be an upper-case asset code such as USDC")
	}
	mustBeEmpty(f, s.PendingID, "pendingId")
	mustBeEmpty(f, s.ReversedID, "reversedId")
	mustBeEmpty(f, s.TargetHome, "targetHome")
	if s.Amount != 0 {
		f.Add("amount", "must be 0; the postings carry the amounts")
	}
	if s.Type == TypePosted && !s.ExpiresAt.IsZero() {
		f.Add("expiresAt", "only a PENDING transfer expires")
	}
	validatePostings(f, s.Postings)
	if s.Type == TypePending && len(s.Postings) != 2 {
		f.Add("postings", "a PENDING transfer has exactly one debit and one credit")
	}
}

// validateResolvingSpec checks POST_PENDING, VOID_PENDING and REVERSAL specs, whose postings
// and asset are derived from the transfer they act on.
func validateResolvingSpec(f core.FieldErrors, s TransferSpec) {
	if s.Asset != "" {
		f.Add("asset", "must be empty; it is taken from the target transfer")
	}
	if len(s.Postings) != 0 {
		f.Add("postings", "must be empty; they are derived from the target transfer")
	}
	if !s.ExpiresAt.IsZero() {
		f.Add("expiresAt", "only a PENDING transfer expires")
	}
	if s.Type == TypeReversal {
		mustBeEmpty(f, s.PendingID, "pendingId")
		if !core.HasPrefix(s.ReversedID, core.PrefixTransfer) {
			f.Add("reversedId", "must be a transfer id (trf_…)")
		}
	} else {
		mustBeEmpty(f, s.ReversedID, "reversedId")
		if !core.HasPrefix(s.PendingID, core.PrefixTransfer) {
			f.Add("pendingId", "must be a transfer id (trf_…)")
		}
	}
	if s.Type == TypePostPending && s.Amount <= 0 {
		f.Add("amount", "must be positive: the part of the hold to post")
	}
	if s.Type != TypePostPending && s.Amount != 0 {
		f.Add("amount", "must be 0")
	}
}

func mustBeEmpty(f core.FieldErrors, value, field string) {
	if value != "" {
		f.Add(field, "must be empty for this transfer type")
	}
}

// validatePostings checks the legs one by one. An account appears at most once: the caller
// nets its own legs, and per-account balance effects stay unambiguous.
func validatePostings(f core.FieldErrors, postings []Posting) {
	if len(postings) < 2 || len(postings) > MaxPostings {
		f.Add("postings", "must have 2 to "+strconv.Itoa(MaxPostings)+" entries")
	}
	seen := make(map[string]bool, len(postings))
	for i, p := range postings {
		at := "postings[" + strconv.Itoa(i) + "]"
		if !core.HasPrefix(p.AccountID, core.PrefixAccount) {
			f.Add(at+".accountId", "must be an account id (acc_…)")
		}
		if seen[p.AccountID] {
			f.Add(at+".accountId", "appears twice; net the legs of one account into one posting")
		}
		seen[p.AccountID] = true
		if p.Amount == 0 || p.Amount == math.MinInt64 {
			f.Add(at+".amount", "must be non-zero and at least -9223372036854775807")
		}
	}
}

// checkSumZero refuses unbalanced postings. The sum is overflow-checked step by step.
func checkSumZero(postings []Posting) error {
	var sum int64
	for _, p := range postings {
		next, err := core.AddInt64(sum, p.Amount)
		if err != nil {
			return core.E(core.CodeAmountOverflow, "postings cannot be summed without overflow")
		}
		sum = next
	}
	if sum != 0 {
		return core.Invalid("postings", "must sum to zero, they sum to "+strconv.FormatInt(sum, 10))
	}
	return nil
}

func validateMetadata(f core.FieldErrors, metadata map[string]string) {
	if len(metadata) > MaxMetadataEntries {
		f.Add("metadata", "must have at most "+strconv.Itoa(MaxMetadataEntries)+" entries")
	}
	for k, v := range metadata {
		if k == "" || len(k) > MaxMetadataKeyBytes || !printable(k) {
			f.Add("metadata", "keys must be 1 to 64 printable bytes")
		}
		if len(v) > MaxMetadataValueBytes {
			f.Add("metadata["+k+"]", "must be at most 512 bytes")
		}
	}
}

// sortedPostings returns a sorted copy, so no caller's slice is ever reordered or shared.
func sortedPostings(postings []Posting) []Posting {
	out := append([]Posting(nil), postings...)
	sort.Slice(out, func(i, j int) bool { return out[i].AccountID < out[j].AccountID })
	return out
}

func copyMetadata(metadata map[string]string) map[string]string {
	if len(metadata) == 0 {
		return nil
	}
	out := make(map[string]string, len(metadata))
	for k, v := range metadata {
		out[k] = v
	}
	return out
}
