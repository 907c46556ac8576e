package checkouts

import (
	"context"
	"regexp"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// CreateInput is a checkout request: Amount in USDC base units (one USD is one USDC).
type CreateInput struct {
	Amount         int64
	Currency       string
	Cryptocurrency string
	Description    string
	CustomerEmail  string
	CustomerName   string
	Metadata       map[string]string
}

// Prepared is a checkout request checked and read against the chain (its head), ready to be
// stored inside the runner's unit of work.
type Prepared struct {
	in         CreateInput
	chainID    int64
	startBlock uint64
}

// Prepare checks the caller and the request and reads the chain's head outside any unit of
// work: the watcher reads the deposit's transfers from there.
func (s *Service) Prepare(ctx context.Context, p auth.Principal, in CreateInput) (Prepared, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return Prepared{}, err
	}
	if err := validate(&in); err != nil {
		return Prepared{}, err
	}
	chain, _, err := s.deposits(p.Environment)
	if err != nil {
		return Prepared{}, err
	}
	head, err := chain.LatestBlock(ctx)
	if err != nil {
		return Prepared{}, core.E(core.CodeChainUnavailable, "the chain node did not answer; retry shortly").Transient(core.RetryDependency)
	}
	return Prepared{in: in, chainID: chain.ChainID(), startBlock: head}, nil
}

var emailPattern = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

func validate(in *CreateInput) error {
	errs := core.FieldErrors{}
	switch {
	case in.Amount <= 0:
		errs.Add("amount", "must be greater than 0")
	case in.Amount > checkout.MaxAmount:
		errs.Add("amount", "must be at most 1000000")
	}
	in.Currency = strings.ToUpper(strings.TrimSpace(in.Currency))
	if in.Currency != "USD" {
		errs.Add("currency", "must be USD (the only currency hosted checkout prices in)")
	}
	in.Cryptocurrency = strings.ToUpper(strings.TrimSpace(in.Cryptocurrency))
	if in.Cryptocurrency == "" {
		in.Cryptocurrency = "USDC"
	}
	if in.Cryptocurrency != "USDC" {
		errs.Add("cryptocurrency", "must be USDC (the only cryptocurrency hosted checkout accepts)")
	}
	if len([]rune(in.Description)) > checkout.MaxDescription {
		errs.Add("description", "must be at most 500 characters")
	} else if why := core.TextProblem(in.Description); why != "" {
		errs.Add("description", why)
	}
	in.CustomerEmail = strings.TrimSpace(in.CustomerEmail)
	if in.CustomerEmail != "" && (len(in.CustomerEmail) > 254 || !emailPattern.MatchString(in.CustomerEmail)) {
		errs.Add("customer.email", "must be an email address")
	}
	if len([]rune(in.CustomerName)) > 200 {
		errs.Add("customer.name", "must be at most 200 characters")
	} else if why := core.TextProblem(in.CustomerName); why != "" {
		errs.Add("customer.name", why)
	}
	if len(in.Metadata) > checkout.MaxMetadataKeys {
		errs.Add("metadata", "must hold at most 20 keys")
	}
	for k, v := range in.Metadata {
		if k == "" || len(k) > checkout.MaxMetadataKey || len(v) > checkout.MaxMetadataValue {
			errs.Add("metadata", "keys must be 1 to 40 characters and values at most 500")
			break
		}
	}
	return errs.Err()
}

// Create stores the prepared checkout with its deposit address and records payment.created.
func (s *Service) Create(ctx context.Context, p auth.Principal, pr Prepared) (checkout.Checkout, error) {
	_, deposits, err := s.deposits(p.Environment)
	if err != nil {
		return checkout.Checkout{}, err
	}
	now := s.clock.Now().UTC()
	id := core.NewID(checkout.PrefixCheckout)
	address, err := deposits.CheckoutDepositAddress(checkout.Salt(id))
	if err != nil {
		return checkout.Checkout{}, err
	}
	c := checkout.Checkout{ID: id, TenantID: p.TenantID, Environment: p.Environment, ChainID: pr.chainID, Amount: pr.in.Amount,
		Currency: pr.in.Currency, Cryptocurrency: pr.in.Cryptocurrency, Description: pr.in.Description,
		CustomerEmail: pr.in.CustomerEmail, CustomerName: pr.in.CustomerName, Metadata: pr.in.Metadata,
		DepositAddress: address.Hex(), StartBlock: pr.startBlock, Status: checkout.StatusCreated,
		ExpiresAt: now.Add(s.cfg.Lifetime), WatchUntil: now.Add(s.cfg.Lifetime + s.cfg.LateWindow), CreatedAt: now, UpdatedAt: now}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if err := tx.Checkouts().CreateCheckout(ctx, c); err != nil {
			return err
		}
		return recordPayment(ctx, tx, c)
	})
	return c, err
}

// recordPayment records the checkout's status as payment.<status>. The data carries the
// merchant's metadata and customer, as GET returns them, so a webhook finds its order without
// reading the checkout back.
func recordPayment(ctx context.Context, tx txView, c checkout.Checkout) error {
	metadata := map[string]string{}
	for k, v := range c.Metadata {
		metadata[k] = v
	}
	extra := map[string]any{"currency": c.Currency, "cryptocurrency": c.Cryptocurrency, "deposit_address": c.DepositAddress,
		"metadata": metadata}
	if c.CustomerEmail != "" || c.CustomerName != "" {
		customer := map[string]string{}
		if c.CustomerEmail != "" {
			customer["email"] = c.CustomerEmail
		}
		if c.CustomerName != "" {
			customer["name"] = c.CustomerName
		}
		extra["customer"] = customer
	}
	if c.TransactionHash != "" {
		extra["transaction_hash"] = c.TransactionHash
	}
	if c.FailureReason != "" {
		extra["failure_reason"] = c.FailureReason
	}
	if c.Received > 0 {
		extra["amount_received"] = core.FormatUSD(c.Received)
	}
	return kernel.RecordEvent(ctx, tx, c.TenantID, c.Environment, "payment", c.ID, strings.ToLower(string(c.Status)), c.Amount, c.UpdatedAt, extra)
}

// Get returns the caller's checkout.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (checkout.Checkout, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return checkout.Checkout{}, err
	}
	if !core.HasPrefix(id, checkout.PrefixCheckout) {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	var out checkout.Checkout
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.Checkouts().FindCheckout(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return out, err
}

// List returns a page of the caller's checkouts, newest first, with how many match.
func (s *Service) List(ctx context.Context, p auth.Principal, q ports.CheckoutQuery, page ports.Page) ([]checkout.Checkout, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsRead); err != nil {
		return nil, 0, err
	}
	q.TenantID, q.Environment = p.TenantID, p.Environment
	var out []checkout.Checkout
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Checkouts().ListCheckouts(ctx, q, page)
		return err
	})
	return out, total, err
}

// Public returns any checkout by id, for the public payment page and its status endpoint (the
// id is the capability: 26 random-ish characters of a UUIDv7, shown only to its payer).
func (s *Service) Public(ctx context.Context, id string) (checkout.Checkout, error) {
	if !core.HasPrefix(id, checkout.PrefixCheckout) {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	var out checkout.Checkout
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.Checkouts().FindPublicCheckout(ctx, id)
		return err
	})
	return out, err
}

// PublicPage is the checkout of id with its merchant's display name, for the hosted page: a
// payer should see whom they pay, not only an amount and an address.
func (s *Service) PublicPage(ctx context.Context, id string) (checkout.Checkout, string, error) {
	if !core.HasPrefix(id, checkout.PrefixCheckout) {
		return checkout.Checkout{}, "", checkout.ErrNotFound
	}
	var out checkout.Checkout
	var merchant string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if out, err = tx.Checkouts().FindPublicCheckout(ctx, id); err != nil {
			return err
		}
		t, err := tx.Tenants().FindTenant(ctx, out.TenantID)
		merchant = t.Name
		return err
	})
	return out, merchant, err
}

// RefundInput is a refund request: Amount nil refunds everything still refundable; Address
// empty refunds to the payer (the sender of the first transfer).
type RefundInput struct {
	Amount  *int64
	Address string
}

// Refund takes amount back from the merchant's service balance for the checkout and queues
// its USDC transfer to the payer. Under the checkout's lock: what refunds take never exceeds
// what was credited for the checkout, so parallel refunds cannot over-refund.
func (s *Service) Refund(ctx context.Context, p auth.Principal, id string, in RefundInput) (checkout.Refund, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsExecute); err != nil {
		return checkout.Refund{}, err
	}
	if err := in.check(); err != nil {
		return checkout.Refund{}, err
	}
	if !core.HasPrefix(id, checkout.PrefixCheckout) {
		return checkout.Refund{}, checkout.ErrNotFound
	}
	var out checkout.Refund
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := lockOwnCheckout(ctx, tx, p, id)
		if err != nil {
			return err
		}
		// A refund moves the tenant's service balance, no wallet of an agent's: agents never may
		// (the early refusal; the guard decides the refund below).
		if err := kernel.CheckConfinement(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}}); err != nil {
			return err
		}
		amount, dest, err := in.terms(c)
		if err != nil {
			return err
		}
		// The spend guard decides the refund: the service balance's spend policy sees its amount,
		// in the balance's cumulative windows, and its receiving address.
		if err := s.guardRefund(ctx, tx, p, c.ID, amount, dest); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		r := checkout.Refund{ID: core.NewID(checkout.PrefixRefund), CheckoutID: c.ID, TenantID: c.TenantID, Environment: c.Environment,
			Amount: amount, Destination: dest, Status: checkout.RefundPending, CreatedAt: now, UpdatedAt: now}
		accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.TenantAvailable(c.Environment, kernel.ServiceAsset, c.TenantID),
			ledger.Share(ledger.World(c.Environment, kernel.ServiceAsset, worldRail), c.TenantID))
		if err != nil {
			return err
		}
		if _, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "checkout-refund:" + r.ID, Type: ledger.TypePosted,
			Environment: c.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, amount),
			Metadata: map[string]string{"checkoutId": c.ID, "refundId": r.ID}}.MustValidate()); err != nil {
			return err
		}
		c.Refunded += amount
		c.UpdatedAt = now
		if err := tx.Checkouts().UpdateCheckout(ctx, c); err != nil {
			return err
		}
		if err := tx.Checkouts().CreateRefund(ctx, r); err != nil {
			return err
		}
		out = r
		return s.jobs.Enqueue(ctx, SendRefundArgs{CheckoutID: c.ID, RefundID: r.ID}, ports.JobOptions{MaxAttempts: refundJobAttempts})
	})
	return out, err
}

// check refuses a malformed request before anything is read.
func (in RefundInput) check() error {
	errs := core.FieldErrors{}
	if in.Amount != nil && *in.Amount <= 0 {
		errs.Add("amount", "must be greater than 0")
	}
	switch {
	case in.Address != "" && !core.IsEVMAddress(in.Address):
		errs.Add("address", "must be a 0x address of 40 hex digits")
	case in.Address != "" && isZeroAddress(in.Address):
		errs.Add("address", zeroAddressRefusal)
	}
	return errs.Err()
}

// zeroAddressRefusal: the checkout factory refuses to pay the zero address (CDF:zero), so a
// refund there could never be sent while its amount sat taken from the service balance.
const zeroAddressRefusal = "must not be the zero address: USDC cannot be refunded there"

// isZeroAddress reports whether a 0x address of 40 hex digits is the zero address.
func isZeroAddress(address string) bool {
	return len(address) == 42 && strings.Trim(address[2:], "0") == ""
}

// terms are the amount and destination of a refund of c: everything still refundable unless the
// request names less, to the payer unless it names an address.
func (in RefundInput) terms(c checkout.Checkout) (int64, string, error) {
	refundable := c.Refundable()
	if refundable <= 0 {
		return 0, "", core.E(checkout.CodeNothingToRefund, "this payment holds nothing to refund (nothing confirmed was received, or everything was refunded)")
	}
	amount := refundable
	if in.Amount != nil {
		amount = *in.Amount
	}
	if amount > refundable {
		return 0, "", (&core.Error{Code: core.CodeInsufficientFunds, Message: "the refund exceeds what this payment received and has not refunded"}).
			WithDetails(map[string]any{"refundable": core.FormatUSD(refundable), "requested": core.FormatUSD(amount)})
	}
	dest := in.Address
	if dest == "" {
		dest = c.PayerAddress
	}
	if dest == "" {
		return 0, "", core.Invalid("address", "is required: the payer's address is not known")
	}
	if isZeroAddress(dest) {
		return 0, "", core.Invalid("address", zeroAddressRefusal)
	}
	return amount, dest, nil
}

// guardRefund puts a refund to the spend guard (kernel.SpendGuard.Decide): a deny of the service
// balance's policy refuses it (403 POLICY_DENIED), changing nothing.
func (s *Service) guardRefund(ctx context.Context, tx txView, p auth.Principal, checkoutID string, amount int64, dest string) error {
	req := spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}, AmountBaseUnits: amount,
		Counterparty: dest, Reference: checkoutID}
	_, denied, err := s.guard.Decide(ctx, tx, req, kernel.SpendChecks{Policy: func(ctx context.Context) (*core.Error, error) {
		return s.policy.GateBalanceSpend(ctx, p, checkoutID, amount, dest)
	}})
	if err != nil {
		return err
	}
	if denied != nil {
		return denied
	}
	return nil
}

// Refunds lists the caller's checkout's refunds.
func (s *Service) Refunds(ctx context.Context, p auth.Principal, id string) ([]checkout.Refund, error) {
	if _, err := s.Get(ctx, p, id); err != nil {
		return nil, err
	}
	var out []checkout.Refund
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, err = tx.Checkouts().ListRefunds(ctx, p.TenantID, id)
		return err
	})
	return out, err
}

// ExpireNow is the TEST helper: the checkout's expires_at becomes now and it is watched at
// once (a job, after commit), as the periodic watcher would after its expiry.
func (s *Service) ExpireNow(ctx context.Context, p auth.Principal, id string) (checkout.Checkout, error) {
	if err := sandboxHelper(p, id); err != nil {
		return checkout.Checkout{}, err
	}
	var out checkout.Checkout
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := lockOwnCheckout(ctx, tx, p, id)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if !c.Status.Terminal() && now.Before(c.ExpiresAt) {
			c.ExpiresAt, c.WatchUntil, c.UpdatedAt = now, now.Add(s.cfg.LateWindow), now
			if err := tx.Checkouts().UpdateCheckout(ctx, c); err != nil {
				return err
			}
		}
		out = c
		return s.jobs.Enqueue(ctx, WatchOneArgs{CheckoutID: c.ID}, ports.JobOptions{MaxAttempts: watchJobAttempts})
	})
	return out, err
}

// worldRail names the outside world of checkout money on the ledger.
const worldRail = "checkout"

// lockOwnCheckout locks the caller's checkout id: another tenant's (or environment's) answers
// not found before any lock is taken.
func lockOwnCheckout(ctx context.Context, tx txView, p auth.Principal, id string) (checkout.Checkout, error) {
	if _, err := tx.Checkouts().FindCheckout(ctx, p.TenantID, p.Environment, id); err != nil {
		return checkout.Checkout{}, err
	}
	return tx.Checkouts().LockCheckout(ctx, p.TenantID, id)
}

// sandboxHelper admits a TEST helper's call on a checkout id: payments:create, TEST only, and
// an id that can be a checkout's.
func sandboxHelper(p auth.Principal, id string) error {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return err
	}
	if err := kernel.RequireSandbox(p, "this helper is available in TEST only"); err != nil {
		return err
	}
	if !core.HasPrefix(id, checkout.PrefixCheckout) {
		return checkout.ErrNotFound
	}
	return nil
}
