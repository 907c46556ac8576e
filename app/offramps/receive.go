package offramps

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// receiveFinishAfter is when the job that finishes a delivery into another tenant's balance
// runs, after the sender's leg committed. The recipient's leg is posted at once by the unit's
// caller; the job is there for a process that died between the legs, and finds the leg
// posted otherwise. The delay keeps it from racing the caller for nothing.
const receiveFinishAfter = 5 * time.Second

// ReceiveDeliveryArgs is the recipient's leg of a delivery into another tenant's service
// balance: everything the leg needs, so that posting it reads and writes the recipient's rows
// only (on a database distributed by tenant, the recipient's shard alone).
type ReceiveDeliveryArgs struct {
	PaymentID         string           `json:"paymentId"`
	Environment       core.Environment `json:"environment"`
	RecipientTenantID string           `json:"recipientTenantId"`
	AmountBaseUnits   int64            `json:"amountBaseUnits"`
	// Reference is the recipient leg's ledger reference (offramp:{id}:receive:{attempt}), which
	// makes it idempotent, and the link both legs carry.
	Reference string `json:"reference"`
	// SenderLeg and SenderLegID name the sender's leg (its reference and transfer id).
	SenderLeg   string `json:"senderLeg"`
	SenderLegID string `json:"senderLegId"`
}

// Kind names the job.
func (ReceiveDeliveryArgs) Kind() string { return "offramp.receive_delivery" }

// receive posts the recipient's leg of a delivery into another tenant's balance:
// the recipient's share of the between-tenants account pays the recipient's service balance.
// It is idempotent by the leg's reference: the caller after the sender's unit and the
// finishing job may both run it, and the leg is posted once.
func (l payoutLedger) receive(ctx context.Context, a ReceiveDeliveryArgs) error {
	s := l.s
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		now := s.clock.Now()
		accs, err := tx.Ledger().OpenAccounts(ctx, now,
			ledger.Share(ledger.BetweenTenants(a.Environment, kernel.ServiceAsset), a.RecipientTenantID),
			ledger.TenantAvailable(a.Environment, kernel.ServiceAsset, a.RecipientTenantID))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: a.Reference, Type: ledger.TypePosted,
			Environment: a.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, a.AmountBaseUnits),
			Metadata: map[string]string{"offrampPaymentId": a.PaymentID, "senderLegId": a.SenderLegID,
				ledger.MetaCrossTenantLeg: ledger.LegRecipient, ledger.MetaCrossTenantLink: a.Reference}}.MustValidate())
		return err
	})
}

// receiveAfterCommit posts the recipient legs a committed unit returned. The process may die
// right before (kernel.CrashBetweenTenantLegs): the job each leg was enqueued with in the
// sender's unit posts it then. A failure here is left to that job too.
func (l payoutLedger) receiveAfterCommit(ctx context.Context, legs []ReceiveDeliveryArgs) {
	s := l.s
	if len(legs) == 0 {
		return
	}
	kernel.CrashPoint(kernel.CrashBetweenTenantLegs)
	for _, leg := range legs {
		if err := l.receive(ctx, leg); err != nil && s.log != nil {
			s.log.WarnContext(ctx, "offramp: recipient leg not posted after the sender's; its job will post it",
				"paymentId", leg.PaymentID, "reference", leg.Reference, "error", err.Error())
		}
	}
}
