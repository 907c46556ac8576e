package http

import (
	"encoding/hex"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
)

// Safe payment DTOs (docs/api.md Payment (Safe payment)). amount is a decimal string; safeNonce,
// threshold and signatures are additions that let a client see where a payment stands.

type safePaymentDestinationRequest struct {
	Type     string `json:"type" oas:"required,enum=handle|email|address|wallet"`
	Handle   string `json:"handle,omitempty"`
	Email    string `json:"email,omitempty"`
	Address  string `json:"address,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$"`
	ChainID  *int64 `json:"chainId,omitempty"`
	WalletID string `json:"walletId,omitempty"`
}

type safePaymentAmountRequest struct {
	Value string `json:"value" oas:"required" description:"The amount, a decimal string in the asset's unit (at most 6 fraction digits)."`
	Asset string `json:"asset,omitempty" oas:"enum=usdc"`
}

type safePaymentCreateRequest struct {
	SourceWalletID string                         `json:"sourceWalletId" oas:"required"`
	Destination    *safePaymentDestinationRequest `json:"destination" oas:"required" description:"Who is paid: a handle, an email, an address (on the wallet's chain) or another wallet."`
	// Amount is omitempty only so the document does not offer null (null is refused as missing).
	Amount *safePaymentAmountRequest `json:"amount,omitempty" oas:"required" description:"How much to pay."`
	Memo   *string                   `json:"memo,omitempty" oas:"maxLength=500"`
	// TwofaChallengeID redeems a satisfied two-factor challenge bound to this very request.
	TwofaChallengeID *string `json:"twofaChallengeId,omitempty"`
}

func (r safePaymentCreateRequest) request() safepay.Request {
	out := safepay.Request{SourceWalletID: r.SourceWalletID}
	if r.Destination != nil {
		out.Destination = &safepay.DestinationInput{
			Type: r.Destination.Type, Handle: r.Destination.Handle, Email: r.Destination.Email,
			Address: r.Destination.Address, ChainID: r.Destination.ChainID, WalletID: r.Destination.WalletID,
		}
	}
	if r.Amount != nil {
		out.AmountValue, out.AmountAsset = r.Amount.Value, r.Amount.Asset
	}
	if r.Memo != nil {
		out.Memo = *r.Memo
	}
	if r.TwofaChallengeID != nil {
		out.TwofaChallengeID = *r.TwofaChallengeID
	}
	return out
}

type safePaymentSignRequest struct {
	Signature string `json:"signature" oas:"required,pattern=^0x[0-9a-fA-F]{130}$"`
}

type safePaymentOwnerRequest struct {
	OwnerAddress string `json:"ownerAddress,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$"`
}

type safePaymentSignatureResponse struct {
	Signer   string    `json:"signer" oas:"required"`
	SignedAt time.Time `json:"signedAt" oas:"required"`
}

type safePaymentResponse struct {
	ID                 string                         `json:"id" oas:"required"`
	SourceWalletID     string                         `json:"sourceWalletId" oas:"required"`
	DestinationType    string                         `json:"destinationType" oas:"required,enum=handle|email|address|wallet" description:"How the destination was given: handle, email, address or wallet; every kind resolves to an address."`
	DestinationHandle  *string                        `json:"destinationHandle" oas:"required" description:"The handle paid (@name) when the destination was a handle; null otherwise."`
	DestinationAddress string                         `json:"destinationAddress" oas:"required"`
	DestinationChainID int64                          `json:"destinationChainId" oas:"required"`
	Asset              string                         `json:"asset" oas:"required,enum=usdc"`
	Amount             string                         `json:"amount" oas:"required"`
	Status             string                         `json:"status" oas:"required,enum=CREATED|AWAITING_SIGNATURE|SIGNING|READY_TO_EXECUTE|EXECUTING|COMPLETED|FAILED|CANCELLED"`
	SafeTxHash         *string                        `json:"safeTxHash" oas:"required"`
	ExecutedTxHash     *string                        `json:"executedTxHash" oas:"required"`
	Memo               *string                        `json:"memo" oas:"required"`
	FailureReason      *string                        `json:"failureReason" oas:"required"`
	CreatedAt          time.Time                      `json:"createdAt" oas:"required"`
	SafeNonce          uint64                         `json:"safeNonce" oas:"required"`
	Threshold          int                            `json:"threshold" oas:"required"`
	Signatures         []safePaymentSignatureResponse `json:"signatures" oas:"required"`
	UpdatedAt          time.Time                      `json:"updatedAt" oas:"required"`
	Kind               string                         `json:"kind" oas:"required,enum=transfer|transaction" description:"transfer: a USDC payment; transaction: a call proposed with POST /v1/wallets/{id}/transactions (amount 0)"`
	Transaction        *safeTransactionResponse       `json:"transaction" oas:"required,nullable" description:"the call of a kind transaction payment; null for a transfer"`
	RejectionPaymentID *string                        `json:"rejectionPaymentId" oas:"required,nullable" description:"On a payment cancelled while later payments were queued behind it: the rejection transaction proposed at its Safe nonce, which the owners sign so the later payments can execute. Null otherwise."`
	RejectsPaymentID   *string                        `json:"rejectsPaymentId" oas:"required,nullable" description:"On a rejection transaction: the cancelled payment whose Safe nonce it uses (a zero-value call of the Safe itself). Null otherwise."`
}

// safeTransactionRequest is a transaction proposal (POST /v1/wallets/{id}/transactions).
type safeTransactionRequest struct {
	To               string  `json:"to" oas:"required,pattern=^0x[0-9a-fA-F]{40}$" description:"the called address"`
	Value            string  `json:"value,omitempty" oas:"pattern=^[0-9]{1,19}$" description:"native coin to send, in wei (decimal string, at most 9223372036854775807); default 0"`
	Data             string  `json:"data,omitempty" oas:"pattern=^0x([0-9a-fA-F]{2})*$" description:"calldata, 0x-prefixed hex; default none"`
	Operation        string  `json:"operation,omitempty" oas:"enum=CALL" description:"CALL only: DELEGATECALL is never proposed through the API"`
	Memo             *string `json:"memo,omitempty" oas:"maxLength=500"`
	TwofaChallengeID *string `json:"twofaChallengeId,omitempty"`
}

func (r safeTransactionRequest) request(walletID string) safepay.TransactionRequest {
	out := safepay.TransactionRequest{WalletID: walletID, To: r.To, Value: r.Value, Data: r.Data, Operation: r.Operation}
	if r.Memo != nil {
		out.Memo = *r.Memo
	}
	if r.TwofaChallengeID != nil {
		out.TwofaChallengeID = *r.TwofaChallengeID
	}
	return out
}

// safeTransactionResponse is the call a payment of kind transaction executes.
type safeTransactionResponse struct {
	To        string `json:"to" oas:"required" description:"The address the Safe calls (0x…, 40 hex digits)."`
	Value     string `json:"value" oas:"required" description:"wei, decimal string"`
	Data      string `json:"data" oas:"required" description:"0x-prefixed hex"`
	Operation string `json:"operation" oas:"required,enum=CALL" description:"How the Safe makes the call: CALL (DELEGATECALL is never proposed)."`
}

type safePaymentListResponse struct {
	Payments []safePaymentResponse `json:"payments" oas:"required"`
	Total    int                   `json:"total" oas:"required"`
}

func toSafePayment(p safepay.Payment) safePaymentResponse {
	sigs := make([]safePaymentSignatureResponse, len(p.Signatures))
	for i, s := range p.Signatures {
		sigs[i] = safePaymentSignatureResponse{Signer: s.Signer, SignedAt: s.SignedAt}
	}
	out := safePaymentResponse{
		ID: p.ID, SourceWalletID: p.SourceWalletID, DestinationType: string(p.DestinationType),
		DestinationHandle: strPtr(p.DestinationHandle), DestinationAddress: p.DestinationAddress,
		DestinationChainID: p.DestinationChainID, Asset: p.Asset, Amount: core.FormatUSD(p.AmountBaseUnits),
		Status: string(p.Status), SafeTxHash: strPtr(p.SafeTxHash), ExecutedTxHash: strPtr(p.ExecutedTxHash),
		Memo: strPtr(p.Memo), FailureReason: strPtr(p.FailureReason), CreatedAt: p.CreatedAt,
		SafeNonce: p.SafeNonce, Threshold: p.Threshold, Signatures: sigs, UpdatedAt: p.UpdatedAt,
		Kind: string(safepay.KindTransfer), Transaction: toSafeTransaction(p.Call),
		RejectionPaymentID: strPtr(p.RejectionPaymentID), RejectsPaymentID: strPtr(p.RejectsPaymentID),
	}
	if p.Call != nil {
		out.Kind = string(safepay.KindTransaction)
	}
	return out
}

func toSafeTransaction(c *safepay.Call) *safeTransactionResponse {
	if c == nil {
		return nil
	}
	return &safeTransactionResponse{To: c.To, Value: c.ValueWei.String(), Data: "0x" + hex.EncodeToString(c.Data), Operation: "CALL"}
}
