package treasuries

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
)

// SweepInput is the body of POST /v1/treasury/accounts/{id}/sweeps.
type SweepInput struct {
	SourceBucketID string
	DestBucketID   string
	AmountUsd      string
	OwnerAddress   string
}

// SweepView is a sweep with its linked payment as it stands now.
type SweepView struct {
	Sweep         treasury.Sweep
	Status        string
	PaymentStatus string
	FailureReason string
}

// SweepRead is a validated manual sweep with what the chain said for its payment, read before
// the unit of work that records it.
type SweepRead struct {
	tenantID string
	sweep    treasury.Sweep
	payment  PaymentRead
}

// ReadSweep validates a manual sweep and reads the chain for its payment. It runs outside any
// unit of work. ownerAddress is required when the source Safe has several owners, and must
// then be one of them: it names who asked for the sweep.
func (s *Service) ReadSweep(ctx context.Context, p auth.Principal, accountID string, in SweepInput) (SweepRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return SweepRead{}, err
	}
	a, err := s.findAccount(ctx, p, accountID)
	if err != nil {
		return SweepRead{}, err
	}
	errs := core.FieldErrors{}
	src := bucketField(a, "sourceBucketId", in.SourceBucketID, errs)
	dst := bucketField(a, "destBucketId", in.DestBucketID, errs)
	if src.ID != "" && src.ID == dst.ID {
		errs.Add("destBucketId", "must differ from sourceBucketId")
	}
	amount, err := core.ParseUSD("amountUsd", in.AmountUsd)
	if err != nil {
		errs.Merge(err)
	} else if amount == 0 {
		errs.Add("amountUsd", "must be greater than zero")
	}
	proposer := s.checkProposer(ctx, p, src, in.OwnerAddress, errs)
	if err := errs.Err(); err != nil {
		return SweepRead{}, err
	}
	sw := treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		SourceBucketID: src.ID, DestBucketID: dst.ID, AmountBaseUnits: amount, Status: treasury.SweepProposed, ProposedBy: proposer}
	read, err := s.payments.ReadSweepPayment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate), sweepRequest(a, sw))
	if err != nil {
		return SweepRead{}, err
	}
	return SweepRead{tenantID: p.TenantID, sweep: sw, payment: read}, nil
}

// CreateSweep records the sweep and its Safe payment (AWAITING_SIGNATURE) in one unit of work.
// Nothing moves until the bucket's owners sign the payment.
func (s *Service) CreateSweep(ctx context.Context, p auth.Principal, read SweepRead) (SweepView, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return SweepView{}, err
	}
	if read.tenantID != p.TenantID {
		return SweepView{}, core.E(core.CodeInternal, "treasury: a sweep read for another tenant")
	}
	var out SweepView
	var refused error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refused = nil
		var err error
		out, err = s.recordSweep(ctx, tx, kernel.Acting(p, auth.ScopePaymentsCreate), read.sweep, read.payment)
		if kernel.IsCommitted(err) {
			// A policy deny in enforce mode recorded the payment FAILED with its decision log:
			// both are kept (the 403 names them), and no sweep is recorded.
			refused = err
			return nil
		}
		return err
	})
	if err == nil && refused != nil {
		return SweepView{}, refused
	}
	return out, err
}

// recordSweep proposes the payment as actor (the caller, or the rule runner) and stores the
// sweep linked to it, inside tx.
func (s *Service) recordSweep(ctx context.Context, tx txView, actor auth.Principal, sw treasury.Sweep, read PaymentRead) (SweepView, error) {
	pay, err := read(ctx, actor)
	if err != nil {
		return SweepView{}, err
	}
	sw.PaymentID, sw.CreatedAt = pay.ID, s.clock.Now().UTC()
	if err := tx.Treasury().CreateSweep(ctx, sw); err != nil {
		return SweepView{}, err
	}
	if err := kernel.RecordEvent(ctx, tx, sw.TenantID, sw.Environment, "treasury_sweep", sw.ID, sw.Status, sw.AmountBaseUnits, sw.CreatedAt,
		map[string]any{"accountId": sw.AccountID, "paymentId": sw.PaymentID}); err != nil {
		return SweepView{}, err
	}
	return viewOf(sw, pay), nil
}

// ListSweeps lists an account's sweeps, newest first, each with its payment's live status.
func (s *Service) ListSweeps(ctx context.Context, p auth.Principal, accountID string, page ports.Page) ([]SweepView, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryRead); err != nil {
		return nil, 0, err
	}
	var out []SweepView
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, strings.TrimSpace(accountID))
		if err != nil {
			return err
		}
		sweeps, n, err := tx.Treasury().ListSweeps(ctx, a.TenantID, a.ID, kernel.ClampPage(page))
		if err != nil {
			return err
		}
		out, total = make([]SweepView, len(sweeps)), n
		for i, sw := range sweeps {
			pay, err := tx.Payments().FindPayment(ctx, sw.TenantID, sw.Environment, sw.PaymentID)
			if err != nil {
				return err
			}
			out[i] = viewOf(sw, pay)
		}
		return nil
	})
	return out, total, err
}

func viewOf(sw treasury.Sweep, pay safepay.Payment) SweepView {
	return SweepView{Sweep: sw, Status: treasury.LiveStatus(string(pay.Status)), PaymentStatus: string(pay.Status),
		FailureReason: pay.FailureReason}
}

// sweepRequest is the Safe payment a sweep links to: USDC from the source bucket's Safe to the
// destination bucket's wallet.
func sweepRequest(a treasury.Account, sw treasury.Sweep) safepay.Request {
	src, _ := a.Bucket(sw.SourceBucketID)
	dst, _ := a.Bucket(sw.DestBucketID)
	return safepay.Request{SourceWalletID: src.WalletID,
		Destination: &safepay.DestinationInput{Type: "wallet", WalletID: dst.WalletID},
		AmountValue: core.FormatUSD(sw.AmountBaseUnits), AmountAsset: "usdc",
		Memo: "treasury sweep " + sw.ID + ": " + src.Name + " to " + dst.Name}
}

func bucketField(a treasury.Account, field, id string, errs core.FieldErrors) treasury.Bucket {
	id = strings.TrimSpace(id)
	if id == "" {
		errs.Add(field, "is required")
		return treasury.Bucket{}
	}
	b, ok := a.Bucket(id)
	if !ok {
		errs.Add(field, "must be a bucket of this account")
	}
	return b
}

// checkProposer validates ownerAddress against the source bucket wallet's owners and returns
// it normalised ("" when not given and not required).
func (s *Service) checkProposer(ctx context.Context, p auth.Principal, src treasury.Bucket, owner string, errs core.FieldErrors) string {
	if src.WalletID == "" {
		return ""
	}
	var owners []string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		owners = nil // a retried unit of work starts from nothing
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, src.WalletID)
		for _, o := range w.Owners {
			owners = append(owners, o.Address)
		}
		return err
	})
	if err != nil {
		errs.Add("sourceBucketId", "its wallet could not be read: "+err.Error())
		return ""
	}
	owner = strings.TrimSpace(owner)
	if owner == "" {
		if len(owners) > 1 {
			errs.Add("ownerAddress", "is required: the source bucket's Safe has several owners")
		}
		return ""
	}
	addr, err := tenant.ValidateAddress("ownerAddress", owner)
	if err != nil {
		errs.Add("ownerAddress", "must be a valid EVM address")
		return ""
	}
	for _, o := range owners {
		if strings.EqualFold(o, addr) {
			return o
		}
	}
	errs.Add("ownerAddress", "must be an owner of the source bucket's Safe")
	return ""
}

// PaymentFinal announces a sweep's outcome when its payment reaches a final status, in the
// payment's unit of work: treasury_sweep.completed, .failed or .cancelled (LiveStatus). A
// payment that is not a sweep's is ignored; telling it again records nothing more.
func (s *Service) PaymentFinal(ctx context.Context, tx txView, pay safepay.Payment) error {
	sw, ok, err := tx.Treasury().FindSweepByPayment(ctx, pay.TenantID, pay.ID)
	if err != nil || !ok {
		return err
	}
	status := treasury.LiveStatus(string(pay.Status))
	if status == treasury.SweepProposed {
		return nil
	}
	extra := map[string]any{"accountId": sw.AccountID, "paymentId": sw.PaymentID}
	if sw.RuleID != "" {
		extra["ruleId"] = sw.RuleID
	}
	if pay.FailureReason != "" {
		extra["failureReason"] = pay.FailureReason
	}
	return kernel.RecordEvent(ctx, tx, sw.TenantID, sw.Environment, "treasury_sweep", sw.ID, status, sw.AmountBaseUnits, pay.UpdatedAt, extra)
}
