package offramps

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// accounts of one payment, opened on demand.
type offrampAccounts struct {
	senderAvailable, locked ledger.Account
}

func openPaymentAccounts(ctx context.Context, tx txView, now time.Time, p offramp.Payment) (offrampAccounts, error) {
	accs, err := tx.Ledger().OpenAccounts(ctx, now,
		ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.SenderTenantID),
		ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID))
	if err != nil {
		return offrampAccounts{}, err
	}
	return offrampAccounts{senderAvailable: accs[0], locked: accs[1]}, nil
}

// Post posts a transfer of the payment in the caller's unit of work, of which it takes only
// the ledger: in the service asset
// (a resolving transfer takes its hold's), with the payment named in its metadata. Claims post
// their escrow legs through it, so every transfer of a payment carries the same metadata.
func (s *Service) Post(ctx context.Context, l ports.LedgerRepo, now time.Time, p offramp.Payment, spec ledger.TransferSpec) (ledger.Transfer, error) {
	return postTransfer(ctx, l, now, p, spec)
}

// postTransfer is Post: a payment's transfers need nothing of the service, so the postings
// below are functions of the payment and the unit of work, not methods.
func postTransfer(ctx context.Context, l ports.LedgerRepo, now time.Time, p offramp.Payment, spec ledger.TransferSpec) (ledger.Transfer, error) {
	spec.Environment = p.Environment
	if spec.TargetID() != "" {
		spec.TargetHome = p.SenderTenantID // a payment's every transfer lives with the sender's rows
	}
	if spec.Type != ledger.TypeVoidPending && spec.Type != ledger.TypePostPending && spec.Type != ledger.TypeReversal {
		spec.Asset = kernel.ServiceAsset // a resolving transfer takes its hold's asset
	}
	if spec.Metadata == nil {
		spec.Metadata = map[string]string{}
	}
	spec.Metadata["offrampPaymentId"] = p.ID
	t, _, err := l.Post(ctx, now, spec.MustValidate())
	return t, err
}

// reserve takes a new reservation hold on the sender's balance (docs/architecture.md). A short balance
// is INSUFFICIENT_FUNDS and reserves nothing.
func reserve(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	p.Reservation++
	t, err := postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: p.LedgerRef("reserve", p.Reservation),
		Type: ledger.TypePending, Postings: ledger.Move(accs.senderAvailable.ID, accs.locked.ID, p.SourceAmountBaseUnits)})
	if core.HasCode(err, core.CodeInsufficientFunds) {
		return core.E(core.CodeInsufficientFunds, "the service balance does not cover %s USD; nothing was reserved",
			core.FormatUSD(p.SourceAmountBaseUnits))
	}
	if err != nil {
		return err
	}
	p.HoldTransferID = t.ID
	return nil
}

// VoidReservation voids the payment's reservation hold, if it holds one, and forgets it. Like
// Post, it takes only the ledger of the caller's unit of work.
func (s *Service) VoidReservation(ctx context.Context, l ports.LedgerRepo, now time.Time, p *offramp.Payment) error {
	if p.HoldTransferID == "" {
		return nil
	}
	_, err := postTransfer(ctx, l, now, *p, ledger.TransferSpec{Reference: p.LedgerRef("void", p.Reservation),
		Type: ledger.TypeVoidPending, PendingID: p.HoldTransferID})
	p.HoldTransferID = ""
	return err
}

func lockReservation(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error {
	_, err := postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: p.LedgerRef("lock", p.Reservation),
		Type: ledger.TypePostPending, PendingID: p.HoldTransferID, Amount: p.SourceAmountBaseUnits})
	p.HoldTransferID = ""
	return err
}

// unlock returns locked funds to the sender (a failed pre-submission re-check).
func unlock(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	_, err = postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: p.LedgerRef("unlock", p.Reservation),
		Type: ledger.TypePosted, Postings: ledger.Move(accs.locked.ID, accs.senderAvailable.ID, p.SourceAmountBaseUnits)})
	return err
}

func toClearing(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error {
	accs, err := openPaymentAccounts(ctx, tx, now, *p)
	if err != nil {
		return err
	}
	clearing, err := tx.Ledger().OpenAccounts(ctx, now, clearingShare(*p))
	if err != nil {
		return err
	}
	_, err = postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: p.LedgerRef("submit", p.Attempt),
		Type: ledger.TypePosted, Postings: ledger.Move(accs.locked.ID, clearing[0].ID, p.SourceAmountBaseUnits)})
	return err
}

// clearingShare is the sender's share of its provider's clearing account, where a submission
// leaves the payment's money: the payment's every transfer then stays with the sender's rows.
func clearingShare(p offramp.Payment) ledger.AccountSpec {
	return ledger.Share(ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider), p.SenderTenantID)
}

// clearingOf is the clearing account the payment's current attempt left its money in: the
// sender's share, or the platform account proper for a payment submitted before clearing was
// split per tenant. The submission's transfer says which, so a payment in flight at the switch
// is delivered or refunded from where its money is, and no share goes negative.
func clearingOf(ctx context.Context, tx txView, p offramp.Payment) (ledger.AccountSpec, error) {
	share := clearingShare(p)
	submit, err := tx.Ledger().TransferByReference(ctx, p.Environment, p.SenderTenantID, p.LedgerRef("submit", p.Attempt))
	if core.HasCode(err, core.CodeTransferNotFound) {
		return share, nil
	}
	if err != nil {
		return share, err
	}
	acc, err := tx.Ledger().FindAccountByReference(ctx, p.Environment, kernel.ServiceAsset, p.SenderTenantID, share.Reference)
	if core.HasCode(err, core.CodeAccountNotFound) {
		return ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider), nil
	}
	if err != nil {
		return share, err
	}
	for _, posting := range submit.Postings {
		if posting.AccountID == acc.ID {
			return share, nil
		}
	}
	return ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider), nil
}

// deliverySide is where delivered money goes: the recipient's service balance on the
// internal rail, else the sender's share of the outside world of the rail (ledger.Share).
func deliverySide(p offramp.Payment, q offramp.Quote) ledger.AccountSpec {
	if q.DestinationType == recipient.DestServiceBalance {
		return ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.RecipientTenantID)
	}
	return ledger.Share(ledger.World(p.Environment, kernel.ServiceAsset, string(q.DestinationType)), p.SenderTenantID)
}

// crossesTenants reports a delivery into another tenant's service balance: money that leaves
// one tenant's rows and arrives in another's, booked as two single-home legs.
func crossesTenants(p offramp.Payment, q offramp.Quote) bool {
	return q.DestinationType == recipient.DestServiceBalance && p.RecipientTenantID != p.SenderTenantID
}

// deliver pays exactly the confirmed quote: its deliver amount to the recipient side, its fee
// to the platform. A delivery into another tenant's balance posts only the sender's leg here
// (the deliver amount into the sender's share of the between-tenants account) and returns the
// recipient's leg, which the caller posts after this unit commits and a job posts again, to
// finish it after a crash (docs/ledger.md, "Money between tenants").
func (l payoutLedger) deliver(ctx context.Context, tx txView, now time.Time, p *offramp.Payment, q offramp.Quote) (*ReceiveDeliveryArgs, error) {
	from, err := clearingOf(ctx, tx, *p)
	if err != nil {
		return nil, err
	}
	to := deliverySide(*p, q)
	cross := crossesTenants(*p, q)
	if cross {
		to = ledger.Share(ledger.BetweenTenants(p.Environment, kernel.ServiceAsset), p.SenderTenantID)
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, from, to, ledger.Share(ledger.PlatformFees(p.Environment, kernel.ServiceAsset), p.SenderTenantID))
	if err != nil {
		return nil, err
	}
	postings := []ledger.Posting{{AccountID: accs[0].ID, Amount: -p.SourceAmountBaseUnits}, {AccountID: accs[1].ID, Amount: q.DeliverBaseUnits}}
	if q.FeeBaseUnits > 0 {
		postings = append(postings, ledger.Posting{AccountID: accs[2].ID, Amount: q.FeeBaseUnits})
	}
	meta := map[string]string{"routeQuoteId": q.ID}
	ref := p.LedgerRef("deliver", p.Attempt)
	var leg *ReceiveDeliveryArgs
	if cross {
		leg = &ReceiveDeliveryArgs{PaymentID: p.ID, Environment: p.Environment, RecipientTenantID: p.RecipientTenantID,
			AmountBaseUnits: q.DeliverBaseUnits, Reference: p.LedgerRef("receive", p.Attempt), SenderLeg: ref}
		meta[ledger.MetaCrossTenantLeg], meta[ledger.MetaCrossTenantLink] = ledger.LegSender, leg.Reference
	}
	t, err := postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: ref, Type: ledger.TypePosted, Postings: postings, Metadata: meta})
	if err != nil || leg == nil {
		return nil, err
	}
	leg.SenderLegID = t.ID
	return leg, l.s.jobs.Enqueue(ctx, *leg, ports.JobOptions{MaxAttempts: offrampJobMaxAttempts, ScheduledAt: now.Add(receiveFinishAfter)})
}

// refund returns a failed payout from the provider's clearing account to the sender.
func refund(ctx context.Context, tx txView, now time.Time, p *offramp.Payment, from ledger.AccountSpec) error {
	accs, err := tx.Ledger().OpenAccounts(ctx, now, from, ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.SenderTenantID))
	if err != nil {
		return err
	}
	_, err = postTransfer(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: p.LedgerRef("refund", p.Attempt),
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, p.SourceAmountBaseUnits)})
	return err
}

// findForParty loads a payment the caller sends or receives, locked when lock is set; any
// other caller gets OFFRAMP_PAYMENT_NOT_FOUND, as for a payment that does not exist.
func findForParty(ctx context.Context, tx txView, p auth.Principal, id string, lock bool) (offramp.Payment, error) {
	pay, err := tx.Offramp().FindPayment(ctx, p.Environment, p.TenantID, id)
	if err != nil || !lock {
		return pay, err
	}
	return tx.Offramp().LockPayment(ctx, id)
}
