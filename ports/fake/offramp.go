package fake

import (
	"context"
	"errors"
	"math"
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// offrampTables hold off-ramp payments with their quote sets and the bookkeeping rows beside
// them: hold rechecks, liquidity top-ups, returns, provider events and review approvals.
type offrampTables struct {
	payments  table[offramp.Payment]
	quotes    table[offramp.Quote] // insertion order is (set version, position)
	rechecks  map[string]recheck
	topUps    map[string]int64 // environment|provider|reference -> amount
	returns   map[string]bool
	events    map[string]bool // provider|event id
	approvals map[string][]offramp.HoldReason
}

type recheck struct {
	attempts int
	next     time.Time
}

func newOfframpTables() offrampTables {
	return offrampTables{payments: newTable[offramp.Payment](), quotes: newTable[offramp.Quote](), rechecks: map[string]recheck{},
		topUps: map[string]int64{}, returns: map[string]bool{}, events: map[string]bool{}, approvals: map[string][]offramp.HoldReason{}}
}

func (t offrampTables) clone() offrampTables {
	out := offrampTables{payments: t.payments.clone(), quotes: t.quotes.clone(), rechecks: copyOf(t.rechecks), topUps: copyOf(t.topUps),
		returns: copyOf(t.returns), events: copyOf(t.events), approvals: map[string][]offramp.HoldReason{}}
	for k, v := range t.approvals {
		out.approvals[k] = append([]offramp.HoldReason(nil), v...)
	}
	return out
}

type offrampRepo struct{ s *Store }

var _ ports.OfframpRepo = offrampRepo{}

var (
	errOfframpNotFound = core.NotFound(offramp.CodePaymentNotFound, "off-ramp payment")
	errQuoteNotFound   = core.NotFound(offramp.CodeQuoteNotFound, "route quote")
)

func (r offrampRepo) t() *offrampTables { return &r.s.state.offramp }

// copyPayment keeps a stored payment's hold reasons apart from the caller's slice.
func copyPayment(p offramp.Payment) offramp.Payment {
	p.HoldReasons = append([]offramp.HoldReason{}, p.HoldReasons...)
	return p
}

func (r offrampRepo) CreatePayment(_ context.Context, p offramp.Payment) error {
	return r.t().payments.insert(p.ID, copyPayment(p))
}

func (r offrampRepo) FindPayment(_ context.Context, env core.Environment, tenantID, id string) (offramp.Payment, error) {
	p, ok := r.t().payments.rows[id]
	if !ok || p.Environment != env || (p.SenderTenantID != tenantID && p.RecipientTenantID != tenantID) {
		return offramp.Payment{}, errOfframpNotFound
	}
	return copyPayment(p), nil
}

func (r offrampRepo) LockPayment(_ context.Context, id string) (offramp.Payment, error) {
	p, ok := r.t().payments.rows[id]
	if !ok {
		return offramp.Payment{}, errOfframpNotFound
	}
	return copyPayment(p), nil
}

func (r offrampRepo) LockPaymentByProviderReference(_ context.Context, provider, reference string) (offramp.Payment, error) {
	rows := r.t().payments.filter(func(p offramp.Payment) bool { return p.Provider == provider && p.ProviderReference == reference }, false)
	if len(rows) == 0 {
		return offramp.Payment{}, errOfframpNotFound
	}
	return copyPayment(rows[0]), nil
}

func (r offrampRepo) UpdatePayment(_ context.Context, p offramp.Payment) error {
	return r.t().payments.update(p.ID, copyPayment(p))
}

func (r offrampRepo) ListPayments(_ context.Context, f ports.OfframpFilter, pg ports.Page) ([]offramp.Payment, int, error) {
	rows := r.t().payments.filter(func(p offramp.Payment) bool {
		return p.Environment == f.Environment && (p.SenderTenantID == f.TenantID || p.RecipientTenantID == f.TenantID)
	}, true)
	out, total := page(rows, pg)
	return out, total, nil
}

func held(s offramp.Status) bool {
	return s == offramp.StatusPayoutSelectionRequired || s == offramp.StatusComplianceHold
}

func ids(rows []offramp.Payment, limit int) []string {
	rows, _ = page(rows, ports.Page{Take: limit})
	out := make([]string, len(rows))
	for i, p := range rows {
		out[i] = p.ID
	}
	return out
}

func (r offrampRepo) HeldPaymentIDs(_ context.Context, env core.Environment, recipientTenantID string, limit int) ([]string, error) {
	return ids(r.t().payments.filter(func(p offramp.Payment) bool {
		return p.Environment == env && p.RecipientTenantID == recipientTenantID && held(p.Status)
	}, false), limit), nil
}

func (r offrampRepo) ExpiredQuotePaymentIDs(_ context.Context, now time.Time, limit int) ([]string, error) {
	return ids(r.t().payments.filter(func(p offramp.Payment) bool {
		if p.Status != offramp.StatusAwaitingRecipientConfirmation {
			return false
		}
		expired := r.t().quotes.filter(func(q offramp.Quote) bool {
			return q.PaymentID == p.ID && q.Status == offramp.QuoteActive && !q.ExpiresAt.After(now)
		}, false)
		return len(expired) > 0
	}, false), limit), nil
}

func (r offrampRepo) RecheckDueHeldPaymentIDs(_ context.Context, now time.Time, reasons []offramp.HoldReason, limit int) ([]string, error) {
	rows := r.t().payments.filter(func(p offramp.Payment) bool {
		rc, backedOff := r.t().rechecks[p.ID]
		return held(p.Status) && anyReason(p.HoldReasons, reasons) && (!backedOff || !rc.next.After(now))
	}, false)
	sort.SliceStable(rows, func(i, j int) bool {
		a, aOK := r.t().rechecks[rows[i].ID]
		b, bOK := r.t().rechecks[rows[j].ID]
		if aOK != bOK {
			return !aOK // never backed off first
		}
		return a.next.Before(b.next)
	})
	return ids(rows, limit), nil
}

func anyReason(have, want []offramp.HoldReason) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

// BackOffHoldRecheck doubles the delay per attempt, from first, at most max.
// sends says whether tenantID is the payment's sender: the rows hanging off a payment are
// keyed by the sender's tenant, so another tenant's name finds nothing (as in PostgreSQL).
func (r offrampRepo) sends(tenantID, paymentID string) bool {
	p, ok := r.t().payments.rows[paymentID]
	return ok && p.SenderTenantID == tenantID
}

func (r offrampRepo) BackOffHoldRecheck(_ context.Context, tenantID, paymentID string, now time.Time, first, max time.Duration) error {
	if !r.sends(tenantID, paymentID) {
		return errors.New("fake: hold recheck of a payment the tenant does not send")
	}
	rc := r.t().rechecks[paymentID]
	delay := time.Duration(float64(first) * math.Pow(2, float64(min(rc.attempts, 30))))
	if rc.attempts == 0 {
		delay = first
	}
	rc.attempts++
	rc.next = now.Add(min(delay, max))
	r.t().rechecks[paymentID] = rc
	return nil
}

func (r offrampRepo) ClearHoldRecheck(_ context.Context, tenantID, paymentID string) error {
	if !r.sends(tenantID, paymentID) {
		return nil
	}
	delete(r.t().rechecks, paymentID)
	return nil
}

func (r offrampRepo) ResetHoldRechecks(_ context.Context, reason offramp.HoldReason) error {
	for id := range r.t().rechecks {
		if p, ok := r.t().payments.rows[id]; ok && anyReason(p.HoldReasons, []offramp.HoldReason{reason}) {
			delete(r.t().rechecks, id)
		}
	}
	return nil
}

func (r offrampRepo) TopUpLiquidity(_ context.Context, env core.Environment, provider, reference string, amount int64, _ string, _ time.Time) (bool, error) {
	key := string(env) + "|" + provider + "|" + reference
	if _, ok := r.t().topUps[key]; ok {
		return false, nil
	}
	r.t().topUps[key] = amount
	return true, nil
}

func (r offrampRepo) LiquidityTopUps(_ context.Context, env core.Environment, provider string) (int64, error) {
	prefix := string(env) + "|" + provider + "|"
	var sum int64
	for k, v := range r.t().topUps {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			if sum > math.MaxInt64-v {
				return math.MaxInt64, nil
			}
			sum += v
		}
	}
	return sum, nil
}

// SenderSpend counts every payment of the sender but excludePaymentID that is not CANCELED
// or REFUNDED, per window, saturating at the int64 maximum.
func (r offrampRepo) SenderSpend(_ context.Context, env core.Environment, senderTenantID, excludePaymentID string, w policy.Windows) (policy.Spend, error) {
	var s policy.Spend
	add := func(sum *int64, v int64) {
		if *sum > math.MaxInt64-v {
			*sum = math.MaxInt64
			return
		}
		*sum += v
	}
	for _, p := range r.t().payments.filter(func(p offramp.Payment) bool {
		return p.Environment == env && p.SenderTenantID == senderTenantID && p.ID != excludePaymentID &&
			p.Status != offramp.StatusCanceled && p.Status != offramp.StatusRefunded
	}, false) {
		if w.Daily.Contains(p.CreatedAt) {
			add(&s.Daily, p.SourceAmountBaseUnits)
		}
		if w.Weekly.Contains(p.CreatedAt) {
			add(&s.Weekly, p.SourceAmountBaseUnits)
		}
		if w.Monthly.Contains(p.CreatedAt) {
			add(&s.Monthly, p.SourceAmountBaseUnits)
		}
	}
	return s, nil
}

func (r offrampRepo) InsertQuotes(_ context.Context, tenantID string, qs []offramp.Quote) error {
	for _, q := range qs {
		if !r.sends(tenantID, q.PaymentID) {
			return errors.New("fake: quote of a payment the tenant does not send")
		}
		if err := r.t().quotes.insert(q.ID, q); err != nil {
			return err
		}
	}
	return nil
}

func (r offrampRepo) SupersedeQuotes(_ context.Context, tenantID, paymentID string, status offramp.QuoteStatus) error {
	if !r.sends(tenantID, paymentID) {
		return nil
	}
	for _, q := range r.t().quotes.filter(func(q offramp.Quote) bool { return q.PaymentID == paymentID && q.Status == offramp.QuoteActive }, false) {
		q.Status = status
		r.t().quotes.rows[q.ID] = q
	}
	return nil
}

func (r offrampRepo) ActiveQuotes(_ context.Context, tenantID, paymentID string) ([]offramp.Quote, error) {
	if !r.sends(tenantID, paymentID) {
		return []offramp.Quote{}, nil
	}
	rows := r.t().quotes.filter(func(q offramp.Quote) bool { return q.PaymentID == paymentID && q.Status == offramp.QuoteActive }, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].SetVersion < rows[j].SetVersion })
	out, _ := page(rows, ports.Page{Take: ports.MaxTake})
	if out == nil {
		out = []offramp.Quote{}
	}
	return out, nil
}

func (r offrampRepo) FindQuote(_ context.Context, tenantID, paymentID, quoteID string) (offramp.Quote, error) {
	q, ok := r.t().quotes.rows[quoteID]
	if !ok || q.PaymentID != paymentID || !r.sends(tenantID, paymentID) {
		return offramp.Quote{}, errQuoteNotFound
	}
	return q, nil
}

func (r offrampRepo) RecordReturn(_ context.Context, tenantID, paymentID, _ string, _ int64, _ time.Time) (bool, error) {
	if !r.sends(tenantID, paymentID) {
		return false, errors.New("fake: return of a payment the tenant does not send")
	}
	if r.t().returns[paymentID] {
		return false, nil
	}
	r.t().returns[paymentID] = true
	return true, nil
}

func (r offrampRepo) RecordProviderEvent(_ context.Context, provider, eventID string, _ time.Time) (bool, error) {
	key := provider + "|" + eventID
	if r.t().events[key] {
		return false, nil
	}
	r.t().events[key] = true
	return true, nil
}

// ApproveReview adds reasons to the payment's approval, each once, sorted.
func (r offrampRepo) ApproveReview(_ context.Context, tenantID, paymentID, _ string, reasons []offramp.HoldReason, _ time.Time) error {
	if !r.sends(tenantID, paymentID) {
		return errors.New("fake: review approval of a payment the tenant does not send")
	}
	set := map[offramp.HoldReason]bool{}
	for _, x := range append(append([]offramp.HoldReason(nil), r.t().approvals[paymentID]...), reasons...) {
		set[x] = true
	}
	out := make([]offramp.HoldReason, 0, len(set))
	for x := range set {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	r.t().approvals[paymentID] = out
	return nil
}

func (r offrampRepo) ApprovedReviewReasons(_ context.Context, tenantID, paymentID string) ([]offramp.HoldReason, error) {
	if !r.sends(tenantID, paymentID) {
		return []offramp.HoldReason{}, nil
	}
	a := r.t().approvals[paymentID]
	out := make([]offramp.HoldReason, len(a))
	copy(out, a)
	return out, nil
}

// OfframpPayment returns a stored off-ramp payment by id, for assertions.
func (s *Store) OfframpPayment(id string) (offramp.Payment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.state.offramp.payments.rows[id]
	return copyPayment(p), ok
}

// recipientTables hold phone aliases, alias attempts, credentials and payout destinations.
type recipientTables struct {
	aliases      table[recipient.Alias]
	attempts     []ports.AliasAttempt
	credentials  map[string]recipient.Credential // tenant|environment
	destinations table[recipient.Destination]
}

func newRecipientTables() recipientTables {
	return recipientTables{aliases: newTable[recipient.Alias](), credentials: map[string]recipient.Credential{},
		destinations: newTable[recipient.Destination]()}
}

func (t recipientTables) clone() recipientTables {
	return recipientTables{aliases: t.aliases.clone(), attempts: append([]ports.AliasAttempt(nil), t.attempts...),
		credentials: copyOf(t.credentials), destinations: t.destinations.clone()}
}

type recipientRepo struct{ s *Store }

var _ ports.RecipientRepo = recipientRepo{}

var (
	errAliasNotFound       = core.NotFound(recipient.CodePhoneAliasNotFound, "phone alias")
	errAliasTaken          = core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
	errDestinationNotFound = core.NotFound(recipient.CodeDestinationNotFound, "payout destination")
)

func (r recipientRepo) t() *recipientTables { return &r.s.state.recipients }

// verifiedTaken reports whether another alias of the number is VERIFIED in env (the unique
// index within a tenant, the phone's lookup row across tenants, in Postgres).
func (r recipientRepo) verifiedTaken(a recipient.Alias) bool {
	return a.Status == recipient.AliasVerified && len(r.t().aliases.filter(func(x recipient.Alias) bool {
		return x.ID != a.ID && x.Environment == a.Environment && x.PhoneHash == a.PhoneHash && x.Status == recipient.AliasVerified
	}, false)) > 0
}

func (r recipientRepo) CreateAlias(_ context.Context, a recipient.Alias) error {
	if r.verifiedTaken(a) {
		return errAliasTaken
	}
	return r.t().aliases.insert(a.ID, a)
}

func (r recipientRepo) LockAlias(_ context.Context, tenantID string, env core.Environment, id string) (recipient.Alias, error) {
	a, ok := r.t().aliases.rows[id]
	if !ok || a.TenantID != tenantID || a.Environment != env {
		return recipient.Alias{}, errAliasNotFound
	}
	return a, nil
}

func (r recipientRepo) UpdateAlias(_ context.Context, a recipient.Alias) error {
	if r.verifiedTaken(a) {
		return errAliasTaken
	}
	return r.t().aliases.update(a.ID, a)
}

func (r recipientRepo) ListAliases(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]recipient.Alias, int, error) {
	rows := r.t().aliases.filter(func(a recipient.Alias) bool { return a.TenantID == tenantID && a.Environment == env }, true)
	out, total := page(rows, p)
	return out, total, nil
}

func (r recipientRepo) FindVerifiedAlias(_ context.Context, env core.Environment, phoneHash string) (recipient.Alias, error) {
	rows := r.t().aliases.filter(func(a recipient.Alias) bool {
		return a.Environment == env && a.PhoneHash == phoneHash && a.Status == recipient.AliasVerified
	}, false)
	if len(rows) == 0 {
		return recipient.Alias{}, errAliasNotFound
	}
	return rows[0], nil
}

func (r recipientRepo) RecordAliasAttempt(_ context.Context, a ports.AliasAttempt) error {
	r.t().attempts = append(r.t().attempts, a)
	return nil
}

// CountAliasAttempts counts one scope's attempts at or after since, and the oldest of them.
func (r recipientRepo) CountAliasAttempts(_ context.Context, s ports.AliasAttemptScope, since time.Time) (int, time.Time, error) {
	n, oldest := 0, time.Time{}
	for _, a := range r.t().attempts {
		match := (s.PhoneHash != "" && a.Environment == s.Environment && a.PhoneHash == s.PhoneHash) ||
			(s.TenantID != "" && a.Environment == s.Environment && a.TenantID == s.TenantID) ||
			(s.IPHash != "" && a.IPHash == s.IPHash)
		if !match || a.At.Before(since) || (s.Kind != "" && a.Kind != s.Kind) {
			continue
		}
		n++
		if oldest.IsZero() || a.At.Before(oldest) {
			oldest = a.At
		}
	}
	return n, oldest, nil
}

// LockAliasBudgets has nothing to lock: units of work already run one at a time.
func (r recipientRepo) LockAliasBudgets(context.Context, ...ports.AliasAttemptScope) error {
	return nil
}

func (r recipientRepo) CountPendingAliases(_ context.Context, tenantID string, env core.Environment, now time.Time) (int, error) {
	return len(r.t().aliases.filter(func(a recipient.Alias) bool {
		return a.TenantID == tenantID && a.Environment == env && a.Status == recipient.AliasPending && a.CodeExpiresAt.After(now)
	}, false)), nil
}

func (r recipientRepo) FindCredential(_ context.Context, tenantID string, env core.Environment) (recipient.Credential, bool, error) {
	c, ok := r.t().credentials[tenantID+"|"+string(env)]
	return c, ok, nil
}

func (r recipientRepo) PutCredential(_ context.Context, c recipient.Credential) error {
	r.t().credentials[c.TenantID+"|"+string(c.Environment)] = c
	return nil
}

func (r recipientRepo) CreateDestination(_ context.Context, d recipient.Destination) error {
	return r.t().destinations.insert(d.ID, d)
}

func (r recipientRepo) FindDestination(_ context.Context, tenantID string, env core.Environment, id string) (recipient.Destination, error) {
	d, ok := r.t().destinations.rows[id]
	if !ok || d.TenantID != tenantID || d.Environment != env {
		return recipient.Destination{}, errDestinationNotFound
	}
	return d, nil
}

func (r recipientRepo) ListDestinations(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]recipient.Destination, int, error) {
	rows := r.t().destinations.filter(func(d recipient.Destination) bool { return d.TenantID == tenantID && d.Environment == env }, false)
	out, total := page(rows, p)
	return out, total, nil
}

func (r recipientRepo) SetDestinationStatus(_ context.Context, tenantID string, env core.Environment, id string, status recipient.DestinationStatus) error {
	d, ok := r.t().destinations.rows[id]
	if !ok || d.TenantID != tenantID || d.Environment != env {
		return errDestinationNotFound
	}
	d.Status = status
	r.t().destinations.rows[id] = d
	return nil
}
