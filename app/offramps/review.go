package offramps

import (
	"context"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
)

// ApproveReview is an operator's approval of a payment's review holds (docs/decisions/operations.md, POST
// /v1/admin/offramp/payments/{id}/approve-review). The HTTP adapter authenticates the operator;
// operator names who approved (recorded with the time). Only a payment in COMPLIANCE_HOLD with
// an operator-review reason can be approved: the approval is recorded, then the full composer
// runs again (POLICY_CHECK), so any other hold still holds and a REJECT still rejects. A second
// approval of reasons already approved changes nothing and answers the payment as it is.
func (s *Service) ApproveReview(ctx context.Context, operator, id string) (offramp.Payment, error) {
	now := s.clock.Now()
	var out offramp.Payment
	err := s.preparedUnit(ctx, []string{id}, func(ctx context.Context, tx txView) error {
		pay, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil {
			return err
		}
		out = pay
		pending := []offramp.HoldReason{}
		if pay.Status == offramp.StatusComplianceHold {
			for _, r := range pay.HoldReasons {
				if reviewReasons[r] {
					pending = append(pending, r)
				}
			}
		}
		if len(pending) == 0 {
			approved, err := tx.Offramp().ApprovedReviewReasons(ctx, pay.SenderTenantID, pay.ID)
			if err != nil {
				return err
			}
			if len(approved) > 0 {
				return nil // already approved: harmless
			}
			return core.E(core.CodeInvalidState, "the payment is %s with no operator-review hold reason to approve", pay.Status).
				WithDetails(map[string]any{"paymentId": pay.ID, "status": string(pay.Status)})
		}
		if err := tx.Offramp().ApproveReview(ctx, pay.SenderTenantID, pay.ID, operator, pending, now); err != nil {
			return err
		}
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigHoldCleared}, now); err != nil {
			return err
		}
		if err := s.RunPolicyCheck(ctx, tx, now, &pay); err != nil {
			return err
		}
		out = pay
		return savePayment(ctx, tx, pay)
	})
	return out, err
}
