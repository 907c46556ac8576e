package http

import (
	"time"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
)

// claimPublicResponse is docs/api.md's claim public view: nothing personal beyond the masked phone.
type claimPublicResponse struct {
	AmountUSD   string    `json:"amountUsd" oas:"required"`
	AssetID     string    `json:"assetId" oas:"required"`
	ChainKey    string    `json:"chainKey" oas:"required"`
	Status      string    `json:"status" oas:"required"`
	ExpiresAt   time.Time `json:"expiresAt" oas:"required"`
	PhoneMasked string    `json:"phoneMasked" oas:"required"`
}

type claimChallengeResponse struct {
	ChallengeID string    `json:"challengeId" oas:"required"`
	ExpiresAt   time.Time `json:"expiresAt" oas:"required"`
}

type claimCodeVerifyRequest struct {
	ChallengeID string `json:"challengeId" oas:"required"`
	Code        string `json:"code" oas:"required" description:"6 digits"`
}

type claimChallengeVerifyResponse struct {
	ChallengeID string `json:"challengeId" oas:"required"`
	Verified    bool   `json:"verified" oas:"required"`
}

type claimRedeemRequest struct {
	ChallengeID   string `json:"challengeId" oas:"required" description:"a VERIFIED phone challenge of this claim"`
	DestinationID string `json:"destinationId" oas:"required" description:"one of the caller's ACTIVE payout destinations"`
}

type claimRedeemResponse struct {
	PaymentID   string                     `json:"paymentId" oas:"required"`
	Status      string                     `json:"status" oas:"required"`
	HoldReasons []string                   `json:"holdReasons" oas:"required"`
	Quotes      []payoutRouteQuoteResponse `json:"quotes" oas:"required"`
}

type claimResendResponse struct {
	ExpiresAt time.Time `json:"expiresAt" oas:"required"`
}

type claimRefundResponse struct {
	ClaimStatus   string  `json:"claimStatus" oas:"required" description:"The claim's status after the request (docs/claims.md lists the states); REFUNDED once the escrow has been refunded to the sender."`
	PaymentStatus string  `json:"paymentStatus" oas:"required"`
	RefundTxHash  *string `json:"refundTxHash" oas:"required"`
}

// claimResponse is a claim as its sender reads it, with the escrow transactions.
type claimResponse struct {
	ClaimID         string    `json:"claimId" oas:"required"`
	PaymentID       string    `json:"paymentId" oas:"required"`
	Status          string    `json:"status" oas:"required"`
	PaymentStatus   string    `json:"paymentStatus" oas:"required"`
	Funded          bool      `json:"funded" oas:"required" description:"the escrow funding is indexed on chain"`
	AmountUSD       string    `json:"amountUsd" oas:"required"`
	AssetID         string    `json:"assetId" oas:"required"`
	ChainKey        string    `json:"chainKey" oas:"required"`
	PhoneMasked     string    `json:"phoneMasked" oas:"required"`
	ExpiresAt       time.Time `json:"expiresAt" oas:"required"`
	Redeemed        bool      `json:"redeemed" oas:"required"`
	EscrowClaimID   string    `json:"escrowClaimId" oas:"required" description:"the opaque bytes32 id in the escrow contract"`
	MetadataHash    string    `json:"metadataHash" oas:"required" description:"The hash the escrow contract records with the claim: sha256 over the domain corridor.claim.metadata.v1, the escrow id and the payment id (0x…, 64 hex digits); never the phone."`
	DecisionHash    *string   `json:"decisionHash" oas:"required" description:"committed on chain with the release"`
	FundTxHash      *string   `json:"fundTxHash" oas:"required"`
	LockTxHash      *string   `json:"lockTxHash" oas:"required"`
	ReleaseTxHash   *string   `json:"releaseTxHash" oas:"required"`
	RefundTxHash    *string   `json:"refundTxHash" oas:"required"`
	CancelTxHash    *string   `json:"cancelTxHash" oas:"required"`
	CreatedAt       time.Time `json:"createdAt" oas:"required"`
	ResendsInWindow int       `json:"resendsInWindow" oas:"required"`
}

func toClaimPublic(v claim.PublicView) claimPublicResponse {
	return claimPublicResponse{AmountUSD: core.FormatUSD(v.AmountBaseUnits), AssetID: v.AssetID, ChainKey: v.ChainKey,
		Status: string(v.Status), ExpiresAt: v.ExpiresAt, PhoneMasked: v.PhoneMasked}
}

func toClaimRefund(v claims.ClaimView) claimRefundResponse {
	return claimRefundResponse{ClaimStatus: string(v.Claim.Status), PaymentStatus: string(v.Payment.Status),
		RefundTxHash: strPtr(v.Claim.RefundTxHash)}
}

func toClaim(v claims.ClaimView) claimResponse {
	c := v.Claim
	return claimResponse{ClaimID: c.ID, PaymentID: c.PaymentID, Status: string(c.Status), PaymentStatus: string(v.Payment.Status),
		Funded: c.Funded, AmountUSD: core.FormatUSD(c.AmountBaseUnits), AssetID: c.AssetID, ChainKey: c.ChainKey,
		PhoneMasked: c.PhoneMasked, ExpiresAt: c.ExpiresAt, Redeemed: c.RedeemedAt != nil, EscrowClaimID: c.OnchainID,
		MetadataHash: c.MetadataHash, DecisionHash: strPtr(c.DecisionHash), FundTxHash: strPtr(c.FundTxHash),
		LockTxHash: strPtr(c.LockTxHash), ReleaseTxHash: strPtr(c.ReleaseTxHash), RefundTxHash: strPtr(c.RefundTxHash),
		CancelTxHash: strPtr(c.CancelTxHash), CreatedAt: c.CreatedAt, ResendsInWindow: c.ResendCount}
}

func toClaimRedeem(v claims.RedeemView) claimRedeemResponse {
	p := toOfframpPayment(v.Payment)
	return claimRedeemResponse{PaymentID: p.PaymentID, Status: p.Status, HoldReasons: p.HoldReasons, Quotes: toPayoutRouteQuotes(v.Quotes)}
}
