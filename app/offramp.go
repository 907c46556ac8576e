package app

import (
	"context"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/offramp"
	"corridor/core/recipient"
	"corridor/ledger"
	"corridor/ports"
)

// offrampDeps are the ports and settings of off-ramp recipients and payments.
type offrampDeps struct {
	cipher        ports.Cipher
	sms           ports.SMS
	smsOutbox     ports.SMSOutbox
	screening     ports.Screening
	payouts       map[string]ports.PayoutRail
	quoteLifetime time.Duration
	pollInterval  time.Duration
}

func newOfframpDeps(d Deps) offrampDeps {
	o := offrampDeps{cipher: d.Cipher, sms: d.SMS, smsOutbox: d.SMSOutbox, screening: d.Screening,
		payouts: d.Payouts, quoteLifetime: d.QuoteLifetime, pollInterval: d.OfframpPollInterval}
	if o.quoteLifetime <= 0 {
		o.quoteLifetime = offramp.DefaultQuoteLifetime
	}
	if o.pollInterval <= 0 {
		o.pollInterval = 5 * time.Second
	}
	return o
}

// usdcByChain are the USDC tokens of SPEC.md's off-ramp source chains, for sourceAssetId.
var usdcByChain = map[int64]string{
	84532: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
	8453:  "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
}

// chainForEnv is the source chain an environment's payments come from.
var chainForEnv = map[core.Environment]int64{core.EnvTest: 84532, core.EnvLive: 8453}

// rail returns the configured provider of a destination type when it may pay out in env:
// internal unless off; external rails only in mock mode and only in TEST (the mock moves no
// real value); sandbox and live vendor adapters are not built.
func (o offrampDeps) rail(env core.Environment, t recipient.DestinationType) (ports.PayoutRail, bool) {
	for _, r := range o.payouts {
		if r.Rail != t || r.Provider == nil || r.Mode == ports.ModeOff || r.Mode == "" {
			continue
		}
		if t == recipient.DestServiceBalance {
			return r, true
		}
		if env == core.EnvTest && r.Mode == ports.ModeMock {
			return r, true
		}
	}
	return ports.PayoutRail{}, false
}

// provider returns a configured provider by name, whatever its mode.
func (o offrampDeps) provider(name string) (ports.PayoutRail, bool) {
	r, ok := o.payouts[name]
	return r, ok && r.Provider != nil
}

// accounts of one payment, opened on demand.
type offrampAccounts struct {
	senderAvailable, locked ledger.Account
}

func openPaymentAccounts(ctx context.Context, tx ports.Tx, now time.Time, p offramp.Payment) (offrampAccounts, error) {
	accs, err := tx.Ledger().OpenAccounts(ctx, now,
		ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.SenderTenantID),
		ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID))
	if err != nil {
		return offrampAccounts{}, err
	}
	return offrampAccounts{senderAvailable: accs[0], locked: accs[1]}, nil
}

func paymentRef(p offramp.Payment, step string, n int) string {
	return "offramp:" + p.ID + ":" + step + ":" + itoa(n)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func (a *App) post(ctx context.Context, tx ports.Tx, now time.Time, p offramp.Payment, spec ledger.TransferSpec) (ledger.Transfer, error) {
	spec.Environment = p.Environment
	if spec.Type != ledger.TypeVoidPending && spec.Type != ledger.TypePostPending {
		spec.Asset = kernel.ServiceAsset // a resolving transfer takes its hold's asset
	}
	if spec.Metadata == nil {
		spec.Metadata = map[string]string{}
	}
	spec.Metadata["offrampPaymentId"] = p.ID
	t, _, err := tx.Ledger().Post(ctx, now, spec.MustValidate())
	return t, err
}

// reserve takes a new reservation hold on the sender's balance (DESIGN.md §2). A short balance
// is INSUFFICIENT_FUNDS and reserves nothing.
func (a *App) reserve(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	p.Reservation++
	t, err := a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "reserve", p.Reservation),
		Type: ledger.TypePending, Postings: ledger.Move(accs.senderAvailable.ID, accs.locked.ID, p.SourceAmountBaseUnits)})
	if isCode(err, core.CodeInsufficientFunds) {
		return core.E(core.CodeInsufficientFunds, "the service balance does not cover %s USD; nothing was reserved",
			core.FormatUSD(p.SourceAmountBaseUnits))
	}
	if err != nil {
		return err
	}
	p.HoldTransferID = t.ID
	return nil
}

func (a *App) voidReservation(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment) error {
	if p.HoldTransferID == "" {
		return nil
	}
	_, err := a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "void", p.Reservation),
		Type: ledger.TypeVoidPending, PendingID: p.HoldTransferID})
	p.HoldTransferID = ""
	return err
}

func (a *App) lockReservation(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment) error {
	_, err := a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "lock", p.Reservation),
		Type: ledger.TypePostPending, PendingID: p.HoldTransferID, Amount: p.SourceAmountBaseUnits})
	p.HoldTransferID = ""
	return err
}

// unlock returns locked funds to the sender (a failed pre-submission re-check).
func (a *App) unlock(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	_, err = a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "unlock", p.Reservation),
		Type: ledger.TypePosted, Postings: ledger.Move(accs.locked.ID, accs.senderAvailable.ID, p.SourceAmountBaseUnits)})
	return err
}

func (a *App) toClearing(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	clearing, err := tx.Ledger().OpenAccounts(ctx, now, ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider))
	if err != nil {
		return err
	}
	_, err = a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "submit", p.Attempt),
		Type: ledger.TypePosted, Postings: ledger.Move(accs.locked.ID, clearing[0].ID, p.SourceAmountBaseUnits)})
	return err
}

// deliverySide is where delivered money goes: the recipient's service balance on the
// internal rail, else the outside world of the rail.
func deliverySide(p offramp.Payment, q offramp.Quote) ledger.AccountSpec {
	if q.DestinationType == recipient.DestServiceBalance {
		return ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.RecipientTenantID)
	}
	return ledger.World(p.Environment, kernel.ServiceAsset, string(q.DestinationType))
}

// deliver pays exactly the confirmed quote: its deliver amount to the recipient side, its fee
// to the platform.
func (a *App) deliver(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment, q offramp.Quote) error {
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider),
		deliverySide(*p, q), ledger.PlatformFees(p.Environment, kernel.ServiceAsset))
	if err != nil {
		return err
	}
	postings := []ledger.Posting{{AccountID: accs[0].ID, Amount: -p.SourceAmountBaseUnits}, {AccountID: accs[1].ID, Amount: q.DeliverBaseUnits}}
	if q.FeeBaseUnits > 0 {
		postings = append(postings, ledger.Posting{AccountID: accs[2].ID, Amount: q.FeeBaseUnits})
	}
	_, err = a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "deliver", p.Attempt),
		Type: ledger.TypePosted, Postings: postings, Metadata: map[string]string{"routeQuoteId": q.ID}})
	return err
}

// refund returns a failed payout from the provider's clearing account to the sender.
func (a *App) refund(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment, from ledger.AccountSpec) error {
	accs, err := tx.Ledger().OpenAccounts(ctx, now, from, ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.SenderTenantID))
	if err != nil {
		return err
	}
	_, err = a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: paymentRef(*p, "refund", p.Attempt),
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, p.SourceAmountBaseUnits)})
	return err
}

// requirePartyRole loads a payment the caller takes part in.
func findForParty(ctx context.Context, tx ports.Tx, p auth.Principal, id string, lock bool) (offramp.Payment, error) {
	pay, err := tx.Offramp().FindPayment(ctx, p.Environment, p.TenantID, id)
	if err != nil || !lock {
		return pay, err
	}
	return tx.Offramp().LockPayment(ctx, id)
}
