package finance

import (
	"strconv"
	"strings"
)

// A ledger reference is an idempotency key built for machines (chain:84532:0x…:0,
// offramp:pay_…:lock:1). Finance reads it back as the business object it belongs to and a
// sentence, so a balance-transactions report can be read without knowing how references are
// built. A reference no rule knows reads as the ledger transfer itself.

// Object types of balance transactions.
const (
	ObjectSandboxDeposit    = "sandbox_deposit"
	ObjectOfframpPayment    = "offramp_payment"
	ObjectChainTransfer     = "chain_transfer"
	ObjectCardAuthorization = "card_authorization"
	ObjectCheckout          = "checkout"
	ObjectCheckoutRefund    = "checkout_refund"
	ObjectTreasuryBucket    = "treasury_bucket"
	ObjectLedgerTransfer    = "ledger_transfer"
)

// Described is what a ledger reference stands for.
type Described struct {
	ObjectType  string
	ObjectID    string
	Description string
}

// networkNames are the chains Corridor runs on, by EIP-155 chain id.
var networkNames = map[string]string{"84532": "Base Sepolia", "8453": "Base", "1": "Ethereum", "11155111": "Sepolia"}

// offrampSteps say what each ledger step of an off-ramp payment did.
var offrampSteps = map[string]string{
	"reserve": "funds reserved", "void": "reservation released", "lock": "funds locked",
	"unlock": "funds returned before submission", "submit": "handed to the payout provider",
	"deliver": "delivered", "receive": "delivered", "refund": "refunded", "return": "returned by the provider",
	"claim-funded": "claim funded", "claim-refund": "claim refunded",
}

// DescribeReference reads a ledger reference (and, for transfers it cannot place, the
// transfer id) as its business object and a sentence.
func DescribeReference(reference, transferID string) Described {
	parts := strings.Split(reference, ":")
	switch {
	case parts[0] == "sandbox_deposit" && len(parts) == 2:
		return Described{ObjectSandboxDeposit, parts[1], "Sandbox deposit"}
	case parts[0] == "offramp" && len(parts) >= 3:
		step := offrampSteps[parts[2]]
		if step == "" {
			step = strings.ReplaceAll(parts[2], "-", " ")
		}
		return Described{ObjectOfframpPayment, parts[1], "Off-ramp payment: " + step}
	case parts[0] == "chain" && (len(parts) == 4 || len(parts) == 5 && parts[4] == "in"):
		return Described{ObjectChainTransfer, parts[2] + ":" + parts[3], chainTransferText(parts[1], parts[2], parts[3])}
	case parts[0] == "chain-reorg" && len(parts) == 2:
		return Described{ObjectLedgerTransfer, parts[1], "Reversal of an on-chain transfer dropped by a chain reorganisation"}
	case parts[0] == "card-auth" && len(parts) == 3:
		return Described{ObjectCardAuthorization, parts[1], "Card authorization: " + parts[2]}
	case parts[0] == "checkout" && len(parts) >= 3 && parts[2] == "credit":
		return Described{ObjectCheckout, parts[1], "Checkout payment received"}
	case parts[0] == "checkout-refund" && len(parts) == 2:
		return Described{ObjectCheckoutRefund, parts[1], "Checkout refund"}
	case parts[0] == "treasury" && len(parts) == 4 && parts[2] == "yield":
		return Described{ObjectTreasuryBucket, parts[1], "Treasury yield for " + parts[3]}
	}
	return Described{ObjectLedgerTransfer, transferID, "Ledger transfer " + reference}
}

// chainTransferText names the network and shortens the transaction hash the way explorers do.
func chainTransferText(chainID, txHash, logIndex string) string {
	network := networkNames[chainID]
	if network == "" {
		network = "chain " + chainID
	}
	short := txHash
	if len(txHash) > 14 {
		short = txHash[:8] + "…" + txHash[len(txHash)-4:]
	}
	text := "USDC transfer on " + network + ", transaction " + short
	if n, err := strconv.Atoi(logIndex); err == nil && n > 0 {
		text += " (transfer " + strconv.Itoa(n+1) + " in it)"
	}
	return text
}
