package safepayments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// CustodySignArgs is the durable job that signs a custodial wallet's payment with its custody
// key (docs/decisions/wallets.md, docs/decisions/reliability.md): enqueued in the proposal's unit of work, it calls the signer after commit,
// outside any transaction, and records the signature in a unit of its own, which (the wallet
// being 1-of-1) makes the payment ready and enqueues its execution. The payment id is its
// idempotency key: a run that finds the payment signed, or past signing, does nothing.
type CustodySignArgs struct {
	// TenantID routes the job's reads to the payment's shard; empty in a job enqueued before
	// jobs carried it (the repository then finds the payment by id alone).
	TenantID  string `json:"tenantId,omitempty"`
	PaymentID string `json:"paymentId"`
}

// Kind names the job.
func (CustodySignArgs) Kind() string { return "payment.custody_sign" }

const (
	custodySignMaxAttempts = 10
	custodySignTimeout     = 30 * time.Second
)

func (s *Service) enqueueCustodySignature(ctx context.Context, tenantID, paymentID string) error {
	return s.jobs.Enqueue(ctx, CustodySignArgs{TenantID: tenantID, PaymentID: paymentID}, ports.JobOptions{MaxAttempts: custodySignMaxAttempts})
}

// SignCustodial signs one payment of a custodial wallet, once.
func (s *Service) SignCustodial(ctx context.Context, tenantID, paymentID string) error {
	pay, err := s.paymentByID(ctx, tenantID, paymentID)
	if err != nil {
		return err
	}
	if !pay.Status.TakesSignatures() {
		return nil // signed already, executed, cancelled or failed: nothing to do
	}
	var ref string
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := tx.Wallets().FindWallet(ctx, pay.TenantID, pay.Environment, pay.SourceWalletID)
		ref = w.CustodyKeyRef
		return err
	}); err != nil {
		return err
	}
	if ref == "" {
		return nil
	}
	if err := s.custodyMaySign(pay); err != nil {
		return err
	}
	signer := s.custody[pay.Environment]
	if signer == nil {
		return core.E(core.CodeProviderUnavailable, "no custody signer serves %s", pay.Environment)
	}
	sig, err := signer.SignHash(ctx, ref, common.HexToHash(pay.SafeTxHash))
	if err != nil {
		return fmt.Errorf("custody signature of payment %s: %w", pay.ID, err)
	}
	p := kernel.System(pay.TenantID, pay.Environment, auth.ScopePaymentsCreate)
	read, err := s.ReadSignature(ctx, p, pay.ID, "0x"+common.Bytes2Hex(sig))
	if err != nil {
		return alreadyDone(err)
	}
	_, err = s.Sign(ctx, p, read)
	return alreadyDone(err)
}

// custodyMaySign is the signer's own check, whatever route proposed the payment: the custody
// key signs a USDC transfer, or a transaction whose effect is one (the gates saw that amount
// and recipient); anything it cannot state as (token, amount, recipient) is refused and stays
// unsigned (the owners may cancel it).
func (s *Service) custodyMaySign(pay safepay.Payment) error {
	if pay.Kind != safepay.KindTransaction || pay.Call == nil {
		return nil
	}
	chain, err := s.chains.Chain(pay.Environment)
	if err != nil {
		return err
	}
	effect := safepay.DecodeEffect(*pay.Call, chain.USDCAddress())
	if effect.Stated {
		return nil
	}
	return safepay.RefuseUnstated(effect)
}

// alreadyDone treats a payment that moved on meanwhile (signed by a parallel run, cancelled) as
// done: the job's work is over either way.
func alreadyDone(err error) error {
	if errors.Is(err, &core.Error{Code: core.CodeInvalidState}) || errors.Is(err, &core.Error{Code: safepay.CodeSignatureDuplicate}) {
		return nil
	}
	return err
}
