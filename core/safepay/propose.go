package safepay

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
)

// Codes of Safe payments beyond the shared ones.
const (
	// CodeDestinationNotResolved: a handle, email or wallet destination names nothing
	// payable (details.reason says why).
	CodeDestinationNotResolved core.Code = "DESTINATION_NOT_RESOLVED"
	// CodeQueueFull: the wallet already has MaxQueued payments waiting for their nonce.
	CodeQueueFull core.Code = "PAYMENT_QUEUE_FULL"
	// CodeScreeningRejected: screening of the destination found a reason not to pay it
	// (details.reasons); nothing is recorded.
	CodeScreeningRejected core.Code = "DESTINATION_SCREENING_REJECTED"
)

// MaxQueued bounds the payments of one wallet between the Safe's current nonce and the next
// free one: each of them must execute, in nonce order, before a later one can.
const MaxQueued = 100

// Failure reasons that are not on-chain reverts. Every failureReason starts with a machine
// code followed by ": " and an explanation.
const (
	ReasonNonceGap  = "NONCE_GAP"
	ReasonNonceUsed = "SAFE_NONCE_USED"
)

// Proposal is everything a new payment is made from, resolved by the application.
type Proposal struct {
	ID, TenantID       string
	Environment        core.Environment
	SourceWalletID     string
	SafeAddress        string // EIP-55
	ChainID            int64
	Token              common.Address // the chain's USDC
	Order              Order
	DestinationAddress string // resolved, EIP-55
	DestinationWallet  string // resolved wallet id, "" for an address destination
	DestinationChainID int64
	Nonce              uint64
	Threshold          int
	Now                time.Time
}

// Propose builds a payment and moves it CREATED → AWAITING_SIGNATURE with the safeTxHash of
// token.transfer(destination, amount) at the given Safe nonce: Safe's own EIP-712 SafeTx hash
// with domain (chainId, Safe address), which owners sign raw.
func Propose(in Proposal) (Payment, error) {
	switch {
	case in.DestinationChainID != in.ChainID:
		return Payment{}, core.Invalid("destination.chainId", fmt.Sprintf("must be %d, the source wallet's chain", in.ChainID))
	case strings.EqualFold(in.DestinationAddress, in.SafeAddress):
		return Payment{}, core.Invalid("destination", "must differ from the source wallet")
	case in.Threshold < 1:
		return Payment{}, fmt.Errorf("safepay: threshold %d of wallet %s", in.Threshold, in.SourceWalletID)
	}
	p := Payment{
		ID: in.ID, TenantID: in.TenantID, Environment: in.Environment, SourceWalletID: in.SourceWalletID,
		SafeAddress: in.SafeAddress, ChainID: in.ChainID,
		DestinationType: in.Order.Destination.Type, DestinationAddress: in.DestinationAddress,
		DestinationWallet: in.DestinationWallet, DestinationChainID: in.DestinationChainID,
		Asset: in.Order.Asset, AmountBaseUnits: in.Order.AmountBaseUnits, Memo: in.Order.Memo,
		Status: StatusCreated, SafeNonce: in.Nonce, Threshold: in.Threshold,
		CreatedAt: in.Now, UpdatedAt: in.Now,
	}
	if p.DestinationType == DestinationHandle {
		p.DestinationHandle = in.Order.Destination.Handle
	}
	p.Kind = KindTransfer
	if in.Order.Call != nil {
		call := *in.Order.Call
		p.Kind, p.Call, p.AmountBaseUnits = KindTransaction, &call, 0
	}
	tx, err := p.transaction(in.Token)
	if err != nil {
		return Payment{}, err
	}
	p.SafeTxHash = safe.TransactionHash(p.ChainID, common.HexToAddress(p.SafeAddress), tx).Hex()
	return p.Apply(TriggerPropose, in.Now)
}

// NextNonce is the Safe nonce a new payment takes: the Safe's current on-chain nonce, or one
// past the highest nonce a pending or completed payment of the wallet holds when that is
// higher (payments queue up behind each other, in nonce order). Counting completed payments
// covers a chain nonce read just before an earlier payment completed.
func NextNonce(chainNonce, highestInUse uint64, inUse bool) uint64 {
	if inUse && highestInUse+1 > chainNonce {
		return highestInUse + 1
	}
	return chainNonce
}

// QueueFull reports whether a payment at nonce next would exceed MaxQueued.
func QueueFull(next, chainNonce uint64) bool {
	return next >= chainNonce && next-chainNonce >= MaxQueued
}

// WaitingFor reports whether the payment is queued behind earlier Safe transactions: the Safe
// executes nonces in order, so it cannot execute before the Safe's nonce reaches its own.
func (p Payment) WaitingFor(chainNonce uint64) bool { return p.SafeNonce > chainNonce }

// transaction is the SafeTx of the payment: token.transfer(destination, amount) at its nonce.
func (p Payment) transaction(token common.Address) (safe.Transaction, error) {
	if p.Call != nil {
		return p.Call.safeTransaction(p.SafeNonce)
	}
	return safe.TokenTransfer(token, common.HexToAddress(p.DestinationAddress),
		big.NewInt(p.AmountBaseUnits), p.SafeNonce)
}

// SafeTransaction rebuilds the SafeTx the owners signed and asserts that it still hashes to the
// stored safeTxHash, so what is relayed is exactly what was signed.
func (p Payment) SafeTransaction(token common.Address) (safe.Transaction, error) {
	tx, err := p.transaction(token)
	if err != nil {
		return safe.Transaction{}, err
	}
	if got := safe.TransactionHash(p.ChainID, common.HexToAddress(p.SafeAddress), tx).Hex(); !strings.EqualFold(got, p.SafeTxHash) {
		return safe.Transaction{}, fmt.Errorf("safepay: payment %s rebuilds to safeTxHash %s, stored %s", p.ID, got, p.SafeTxHash)
	}
	return tx, nil
}

// PackedSignatures is the signatures argument of execTransaction: the collected signatures
// sorted by signer, as Safe's checkNSignatures requires.
func (p Payment) PackedSignatures() ([]byte, error) {
	if len(p.Signatures) < p.Threshold {
		return nil, fmt.Errorf("safepay: payment %s has %d of %d signatures", p.ID, len(p.Signatures), p.Threshold)
	}
	owned := make([]safe.OwnerSignature, 0, len(p.Signatures))
	for _, s := range p.Signatures {
		sig, err := safe.ParseSignature(s.Value)
		if err != nil {
			return nil, fmt.Errorf("safepay: payment %s holds an unreadable signature of %s: %w", p.ID, s.Signer, err)
		}
		owned = append(owned, safe.OwnerSignature{Signer: common.HexToAddress(s.Signer), Signature: sig})
	}
	return safe.PackSignatures(owned)
}

// Cancel moves a payment that has not been sent to CANCELLED. later are the wallet's other
// queued payments with a higher nonce. With none, the nonce is simply freed for the next
// proposal. With some, leaving nonce n unused would block every one of them (the Safe executes
// nonces in order), so Cancel also returns a rejection: a Safe transaction at the same nonce that
// calls the Safe itself with no value and no data. Once the owners sign and it executes, nonce n
// is used, the cancelled payment's signatures are void on chain, and every later payment executes
// with the signatures it already holds (nothing is renumbered or re-signed). rejectionID names
// the new payment; it is unused when no rejection is needed.
func (p Payment) Cancel(later []Payment, rejectionID string, now time.Time) (Payment, *Payment, error) {
	if !p.Can(TriggerCancel) {
		out, err := p.Apply(TriggerCancel, now)
		return out, nil, err
	}
	cancelled, err := p.Apply(TriggerCancel, now)
	if err != nil || len(later) == 0 {
		return cancelled, nil, err
	}
	rejection, err := p.rejection(rejectionID, now)
	if err != nil {
		return p, nil, err
	}
	cancelled.RejectionPaymentID = rejection.ID
	return cancelled, &rejection, nil
}

// rejection is the payment that uses a cancelled payment's nonce without moving anything:
// Safe{Wallet} calls the same construction an on-chain rejection. It needs the wallet's
// threshold of signatures like any other Safe transaction.
func (p Payment) rejection(id string, now time.Time) (Payment, error) {
	r := Payment{
		ID: id, Kind: KindTransaction, TenantID: p.TenantID, Environment: p.Environment,
		Call:           &Call{To: p.SafeAddress, ValueWei: new(big.Int), Data: []byte{}},
		SourceWalletID: p.SourceWalletID, SafeAddress: p.SafeAddress, ChainID: p.ChainID,
		DestinationType: DestinationAddress, DestinationAddress: p.SafeAddress, DestinationChainID: p.ChainID,
		Asset: AssetUSDC, Memo: fmt.Sprintf("Rejection of cancelled payment %s at Safe nonce %d", p.ID, p.SafeNonce),
		Status: StatusCreated, SafeNonce: p.SafeNonce, Threshold: p.Threshold,
		RejectsPaymentID: p.ID, CreatedAt: now, UpdatedAt: now,
	}
	tx, err := r.transaction(common.Address{})
	if err != nil {
		return Payment{}, err
	}
	r.SafeTxHash = safe.TransactionHash(r.ChainID, common.HexToAddress(r.SafeAddress), tx).Hex()
	return r.Apply(TriggerPropose, now)
}

// NonceGapReason is the failureReason of a queued payment whose predecessor failed without
// using its nonce: the Safe could never reach this payment's nonce.
func NonceGapReason(failed Payment) string {
	return fmt.Sprintf("%s: payment %s at Safe nonce %d failed without using its nonce, so this later payment could never execute; propose it again",
		ReasonNonceGap, failed.ID, failed.SafeNonce)
}

// NonceUsedReason is the failureReason of a payment whose nonce another Safe transaction used.
func NonceUsedReason(p Payment) string {
	return fmt.Sprintf("%s: the Safe already executed another transaction at nonce %d; propose the payment again",
		ReasonNonceUsed, p.SafeNonce)
}
