package safepayments

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// ProposalRead is what a proposal reads before its unit of work: the validated order, the
// source wallet, and the Safe's nonce and threshold as the chain reported them. ReadProposal
// makes it outside any database transaction (the HTTP adapter runs it before the idempotent
// unit), so a slow or silent node never holds a pooled connection.
type ProposalRead struct {
	tenantID   string
	order      safepay.Order
	wallet     wallet.Wallet
	token      common.Address
	chainNonce uint64
	threshold  int
	// challengeID is the twofaChallengeId the client sent, if any.
	challengeID string
	// screened is the destination's screening verdict, asked while preparing.
	screened screened
}

// ReadProposal validates a proposal and reads the chain for it. It runs no transaction of
// its own beyond a short read of the wallet, and must be called outside any unit of work.
func (s *Service) ReadProposal(ctx context.Context, p auth.Principal, in safepay.Request) (ProposalRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return ProposalRead{}, err
	}
	order, err := safepay.ParseOrder(in)
	if err != nil {
		return ProposalRead{}, err
	}
	chain, err := s.chains.Chain(p.Environment)
	if err != nil {
		return ProposalRead{}, err
	}
	w, dest, err := s.readSource(ctx, p, &order, false)
	if err != nil {
		return ProposalRead{}, err
	}
	return s.readSafe(ctx, chain, p, order, w, dest, in.TwofaChallengeID)
}

// readSafe finishes a proposal's read: the Safe's nonce and threshold from the chain, then the
// destination's screening, all outside any unit of work.
func (s *Service) readSafe(ctx context.Context, chain ports.Chain, p auth.Principal, order safepay.Order,
	w wallet.Wallet, dest *resolvedDestination, challengeID string) (ProposalRead, error) {
	safeAddress := common.HexToAddress(w.Address)
	chainNonce, err := chain.SafeNonce(ctx, safeAddress)
	if err != nil {
		return ProposalRead{}, paymentChainError("reading the Safe's nonce", err)
	}
	threshold, err := chain.SafeThreshold(ctx, safeAddress)
	if err != nil {
		return ProposalRead{}, paymentChainError("reading the Safe's threshold", err)
	}
	read := ProposalRead{tenantID: p.TenantID, order: order, wallet: w, token: chain.USDCAddress(),
		chainNonce: chainNonce, threshold: threshold, challengeID: strings.TrimSpace(challengeID)}
	return s.prepareScreening(ctx, p, read, dest), nil
}

// prepareScreening asks screening, outside any transaction, about the payment as Propose will
// record it (dest resolved now; nil when it did not resolve, and Propose reports why).
func (s *Service) prepareScreening(ctx context.Context, p auth.Principal, read ProposalRead, dest *resolvedDestination) ProposalRead {
	if dest == nil {
		return read
	}
	pay, err := safepay.Propose(s.proposal(p, read, read.wallet, *dest, read.chainNonce, core.NewID(core.PrefixPayment)))
	if err != nil {
		return read // the unit of work refuses it the same way, before any gate
	}
	read.screened = s.screen(ctx, p, pay.Gated(read.token))
	return read
}

// proposal is what Propose records: the order from the source wallet to the resolved
// destination on the given nonce.
func (s *Service) proposal(p auth.Principal, read ProposalRead, source wallet.Wallet, dest resolvedDestination, nonce uint64, id string) safepay.Proposal {
	return safepay.Proposal{
		ID: id, TenantID: p.TenantID, Environment: p.Environment,
		SourceWalletID: source.ID, SafeAddress: common.HexToAddress(source.Address).Hex(), ChainID: source.ChainID,
		Token: read.token, Order: read.order,
		DestinationAddress: dest.address, DestinationWallet: dest.walletID, DestinationChainID: dest.chainID,
		Nonce: nonce, Threshold: read.threshold, Now: s.clock.Now(),
	}
}

// Propose records a Safe payment from one of the caller's DEPLOYED wallets and returns
// it AWAITING_SIGNATURE with the safeTxHash its owners sign (docs/api.md Safe payments).
//
// The chain was read by ReadProposal, before this unit of work: it makes no network call, so
// it can run inside the idempotency transaction. It locks the source wallet, so concurrent
// proposals of one wallet take consecutive nonces, resolves the destination and picks the
// nonce with safepay.NextNonce from the chain's nonce and the nonces already in use.
func (s *Service) Propose(ctx context.Context, p auth.Principal, read ProposalRead) (safepay.Payment, error) {
	if err := checkRead(p, auth.ScopePaymentsCreate, read.tenantID); err != nil {
		return safepay.Payment{}, err
	}
	order, w, chainNonce := read.order, read.wallet, read.chainNonce

	// The gates run inside the unit of work below, once the destination is resolved (its
	// address is the policy's counterparty and the contact looked up), in the documented order
	// (docs/payments.md, "Gate order"): screening of the destination (DESTINATION_SCREENING_
	// REJECTED; nothing recorded), spend policy (POLICY_DENIED; enforce mode records the
	// payment FAILED), agent limits (AGENT_LIMIT, AGENT_SUSPENDED; nothing recorded), then
	// contacts and two-factor approval (PAYEE_COOLING_OFF, NEW_PAYEE_NOT_SAVED, TWOFA_*; a new
	// challenge is committed, no payment recorded). The first gate that refuses answers.

	var pay safepay.Payment
	var denied *core.Error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		denied = nil
		locked, err := tx.Wallets().LockWallet(ctx, w.TenantID, w.ID)
		if err != nil {
			return err
		}
		dest, err := s.resolveDestination(ctx, tx, p, locked, order.Destination)
		if err != nil {
			return err
		}
		nonce, err := nextNonce(ctx, tx, locked.TenantID, locked.ID, chainNonce)
		if err != nil {
			return err
		}
		if pay, err = safepay.Propose(s.proposal(p, read, locked, dest, nonce, core.NewID(core.PrefixPayment))); err != nil {
			return err
		}
		if denied, pay, err = s.gateAndSave(ctx, tx, p, pay, read); err != nil {
			return err
		}
		// A custodial wallet's key signs after commit, from a job (the signer may be an HSM).
		if denied == nil && locked.Custodial() {
			return s.enqueueCustodySignature(ctx, pay.TenantID, pay.ID)
		}
		return nil
	})
	if err == nil && denied != nil {
		// The refusal's unit committed (a new challenge, a FAILED record): a composing caller
		// commits it too (kernel.CommittedRefusal).
		return pay, kernel.Committed(denied)
	}
	return pay, err
}

// nextNonce is the nonce of the wallet's next proposal, from the chain's nonce and the nonces
// its payments already use; QUEUE_FULL when MaxQueued payments wait behind the chain's nonce.
func nextNonce(ctx context.Context, tx txView, tenantID, walletID string, chainNonce uint64) (uint64, error) {
	highest, inUse, err := tx.Payments().HighestNonceInUse(ctx, tenantID, walletID)
	if err != nil {
		return 0, err
	}
	nonce := safepay.NextNonce(chainNonce, highest, inUse)
	if safepay.QueueFull(nonce, chainNonce) {
		return 0, core.E(safepay.CodeQueueFull, "wallet %s already has %d payments queued behind the Safe's nonce %d; execute or cancel some first",
			walletID, safepay.MaxQueued, chainNonce)
	}
	return nonce, nil
}

// gateAndSave runs the gates on the proposed payment and records it. The gates see the
// payment's real effect: a transaction whose calldata is a USDC transfer is gated as a payment
// of that amount to that recipient. A refusal is denied with a nil error; a policy deny in
// enforce mode records the payment FAILED (failureReason POLICY_DENIED: …) with its decision
// log, committed, and the caller then gets 403 POLICY_DENIED.
func (s *Service) gateAndSave(ctx context.Context, tx txView, p auth.Principal, pay safepay.Payment,
	read ProposalRead) (*core.Error, safepay.Payment, error) {
	denied, policyDenied, err := s.gate(ctx, tx, p, pay.Gated(read.token), read)
	if err != nil || (denied != nil && !policyDenied) {
		return denied, pay, err
	}
	if denied != nil {
		if pay, err = policyDeniedPayment(pay, denied, s.clock.Now()); err != nil {
			return nil, pay, err
		}
	}
	return denied, pay, s.savePayment(ctx, tx, pay, true)
}

// gate runs the gates in their documented order on the payment as the gates see it (gated):
// screening of the destination (asked while preparing; a refusal records nothing), then the spend guard
// (kernel.SpendGuard.Decide), which decides agent confinement, the spend policy (policyDenied:
// the caller records the payment FAILED), the agent caps, reserved (nothing recorded), and
// contacts with two-factor approval (a refusal commits what the gate wrote, a new challenge).
func (s *Service) gate(ctx context.Context, tx txView, p auth.Principal, gated safepay.Payment, read ProposalRead) (denied *core.Error, policyDenied bool, err error) {
	challengeID := read.challengeID
	if denied, err = read.screened.answer(gated); err != nil || denied != nil {
		return denied, false, err
	}
	req := spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceWallet, WalletID: gated.SourceWalletID},
		AmountBaseUnits: gated.AmountBaseUnits, Counterparty: gated.DestinationAddress, Reference: gated.ID}
	step, denied, err := s.guard.Decide(ctx, tx, req, kernel.SpendChecks{
		Policy: func(ctx context.Context) (*core.Error, error) { return s.policyGate.GateSafePayment(ctx, p, gated) },
		Caps:   func(ctx context.Context) error { return s.agentGate.GateAgentPayment(ctx, p, gated) },
		Approval: func(ctx context.Context) (*core.Error, error) {
			return s.approvalGate.GateSafePayment(ctx, p, gated, challengeID)
		},
	})
	return denied, denied != nil && step == kernel.StepPolicy, err
}

// readSource loads the caller's wallet, insisting it is deployed (a Safe that does not exist
// yet has no nonce to sign for and cannot execute: docs/decisions/README.md, "Safe payments"),
// and resolves the order's destination, in one short read. dest is nil when the destination
// does not resolve: Propose resolves it again in its unit of work and answers why. A
// transaction's destination is on the wallet's chain (onWalletChain).
func (s *Service) readSource(ctx context.Context, p auth.Principal, order *safepay.Order, onWalletChain bool) (wallet.Wallet, *resolvedDestination, error) {
	var w wallet.Wallet
	var dest *resolvedDestination
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if w, err = tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, order.SourceWalletID); err != nil || w.Status != wallet.StatusDeployed {
			return err
		}
		if onWalletChain {
			order.Destination.ChainID = w.ChainID
		}
		if resolved, err := s.resolveDestination(ctx, tx, p, w, order.Destination); err == nil {
			dest = &resolved
		}
		return nil
	})
	if err != nil {
		return w, nil, err
	}
	if w.Status != wallet.StatusDeployed {
		return w, nil, core.E(core.CodeInvalidState, "wallet %s is %s: payments can be proposed once it is DEPLOYED", w.ID, w.Status).
			WithDetails(map[string]any{"walletStatus": string(w.Status)})
	}
	return w, dest, nil
}

// ReasonPolicyDenied starts the failureReason of a payment the policy blocked in enforce mode
// ("POLICY_DENIED: <rule code> ...", the machine-code-then-explanation form of safepay).
const ReasonPolicyDenied = "POLICY_DENIED"

// policyDeniedPayment is the FAILED record of a payment the policy blocked: it keeps what was
// asked for, gives up its Safe nonce (failed payments hold none) and has nothing to sign.
func policyDeniedPayment(pay safepay.Payment, denied *core.Error, now time.Time) (safepay.Payment, error) {
	reason, _ := denied.Details["reason"].(string)
	failed, err := pay.Fail(ReasonPolicyDenied+": "+reason+": "+denied.Message, now)
	failed.SafeTxHash = ""
	return failed, err
}
