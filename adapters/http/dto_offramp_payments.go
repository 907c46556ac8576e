package http

import (
	"strconv"
	"time"

	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/core/offramp"
)

type offrampPaymentCreateRequest struct {
	Phone                  string `json:"phone" oas:"required,maxLength=32"`
	AmountUSD              string `json:"amountUsd" oas:"required"`
	ChainID                *int64 `json:"chainId,omitempty"`
	FundingMode            string `json:"fundingMode,omitempty" oas:"enum=INTERNAL_BALANCE|ONCHAIN_DEPOSIT|SAFE_PROPOSAL" description:"How the payment is funded; only INTERNAL_BALANCE (the default) works, the others answer 400 FUNDING_MODE_NOT_AVAILABLE."`
	RequestedDestinationID string `json:"requestedDestinationId,omitempty"`
	SpeedPreference        string `json:"speedPreference,omitempty" oas:"enum=FASTEST|CHEAPEST" description:"Which route to prefer when several fit: FASTEST or CHEAPEST."`
}

type payoutRouteSelectRequest struct {
	RouteQuoteID string `json:"routeQuoteId" oas:"required"`
}

type payoutRouteQuoteFees struct {
	ProviderFeeMinor string `json:"providerFeeMinor" oas:"required"`
	NetworkFeeMinor  string `json:"networkFeeMinor" oas:"required"`
}

// payoutRouteQuoteResponse is docs/api.md's RouteQuote.
type payoutRouteQuoteResponse struct {
	RouteID                  string               `json:"routeId" oas:"required"`
	PaymentID                string               `json:"paymentId" oas:"required"`
	DestinationID            string               `json:"destinationId" oas:"required"`
	Provider                 string               `json:"provider" oas:"required" description:"The payout provider of the route (lower case)."`
	SourceAmountBaseUnits    string               `json:"sourceAmountBaseUnits" oas:"required"`
	SourceAssetID            string               `json:"sourceAssetId" oas:"required"`
	DestinationAmountMinor   string               `json:"destinationAmountMinor" oas:"required"`
	DestinationCurrency      string               `json:"destinationCurrency" oas:"required"`
	Fees                     payoutRouteQuoteFees `json:"fees" oas:"required"`
	ExchangeRate             string               `json:"exchangeRate" oas:"required" description:"USD to the destination currency, a decimal string (1 for USD)."`
	EstimatedDeliverySeconds int                  `json:"estimatedDeliverySeconds" oas:"required"`
	RequiresBridge           bool                 `json:"requiresBridge" oas:"required"`
	RequiresConversion       bool                 `json:"requiresConversion" oas:"required"`
	RequiresPrefunding       bool                 `json:"requiresPrefunding" oas:"required" description:"Whether the provider must be prefunded before it pays out on this route."`
	Status                   string               `json:"status" oas:"required"`
	QuoteExpiresAt           time.Time            `json:"quoteExpiresAt" oas:"required"`
}

// offrampPaymentResponse is docs/api.md's OffRampPayment; quotes only in the create response.
type offrampPaymentResponse struct {
	PaymentID              string                      `json:"paymentId" oas:"required"`
	Status                 string                      `json:"status" oas:"required"`
	RecipientPhoneMasked   *string                     `json:"recipientPhoneMasked" oas:"required"`
	RecipientTenantID      *string                     `json:"recipientTenantId" oas:"required"`
	ClaimID                *string                     `json:"claimId" oas:"required"`
	SourceChainKey         string                      `json:"sourceChainKey" oas:"required" description:"The chain the USDC comes from, as a CAIP-2 key (eip155:<chain id>)."`
	SourceAssetID          string                      `json:"sourceAssetId" oas:"required"`
	SourceAmountBaseUnits  string                      `json:"sourceAmountBaseUnits" oas:"required"`
	SourceFundingMode      string                      `json:"sourceFundingMode" oas:"required" description:"How the payment is funded: INTERNAL_BALANCE (the service balance), ONCHAIN_DEPOSIT or SAFE_PROPOSAL."`
	RequestedDestinationID *string                     `json:"requestedDestinationId" oas:"required"`
	SelectedRouteQuoteID   *string                     `json:"selectedRouteQuoteId" oas:"required"`
	HoldReasons            []string                    `json:"holdReasons" oas:"required"`
	FailureReason          *string                     `json:"failureReason" oas:"required"`
	RequoteReason          *string                     `json:"requoteReason" oas:"required,enum=QUOTE_EXPIRED|DESTINATION_UNAVAILABLE|DESTINATION_REVOKED|RAIL_UNAVAILABLE|CREDENTIAL_CHANGED|POLICY_CHANGED" description:"Why the check just before submission sent this confirmed payment back to quoting: QUOTE_EXPIRED (the confirmed quote lapsed: rates may have changed, the recipient confirms a new quote), DESTINATION_UNAVAILABLE, DESTINATION_REVOKED, RAIL_UNAVAILABLE, CREDENTIAL_CHANGED or POLICY_CHANGED; null when that never happened or once the recipient confirmed again."`
	DeliveredAt            *time.Time                  `json:"deliveredAt" oas:"required"`
	CreatedAt              time.Time                   `json:"createdAt" oas:"required"`
	Quotes                 *[]payoutRouteQuoteResponse `json:"quotes,omitempty"`
}

type offrampPaymentListResponse struct {
	Payments []offrampPaymentResponse `json:"payments" oas:"required"`
	Total    int                      `json:"total" oas:"required"`
}

type payoutRouteQuotesResponse struct {
	Routes []payoutRouteQuoteResponse `json:"routes" oas:"required"`
}

type providerWebhookResponse struct {
	Received  bool `json:"received" oas:"required" description:"Always true: the event's signature verified and it was accepted."`
	Duplicate bool `json:"duplicate" oas:"required" description:"Whether the provider had sent this event before: a duplicate changes nothing."`
}

func toPayoutRouteQuote(q offramp.Quote) payoutRouteQuoteResponse {
	return payoutRouteQuoteResponse{RouteID: q.ID, PaymentID: q.PaymentID, DestinationID: q.DestinationID, Provider: q.Provider,
		SourceAmountBaseUnits: strconv.FormatInt(q.SourceAmountBaseUnits, 10), SourceAssetID: q.SourceAssetID,
		DestinationAmountMinor: strconv.FormatInt(q.DestinationAmountMinor, 10), DestinationCurrency: q.DestinationCurrency,
		Fees:         payoutRouteQuoteFees{ProviderFeeMinor: strconv.FormatInt(q.ProviderFeeMinor, 10), NetworkFeeMinor: strconv.FormatInt(q.NetworkFeeMinor, 10)},
		ExchangeRate: q.ExchangeRate, EstimatedDeliverySeconds: q.EstimatedDeliverySeconds, RequiresBridge: q.RequiresBridge,
		RequiresConversion: q.RequiresConversion, RequiresPrefunding: q.RequiresPrefunding, Status: string(q.Status),
		QuoteExpiresAt: q.ExpiresAt}
}

func toPayoutRouteQuotes(qs []offramp.Quote) []payoutRouteQuoteResponse {
	out := make([]payoutRouteQuoteResponse, len(qs))
	for i, q := range qs {
		out[i] = toPayoutRouteQuote(q)
	}
	return out
}

func toOfframpPayment(p offramp.Payment) offrampPaymentResponse {
	holds := make([]string, len(p.HoldReasons))
	for i, h := range p.HoldReasons {
		holds[i] = string(h)
	}
	return offrampPaymentResponse{PaymentID: p.ID, Status: string(p.Status), RecipientPhoneMasked: strPtr(p.RecipientPhoneMasked),
		RecipientTenantID: strPtr(p.RecipientTenantID), ClaimID: strPtr(p.ClaimID), SourceChainKey: p.SourceChainKey,
		SourceAssetID: p.SourceAssetID, SourceAmountBaseUnits: strconv.FormatInt(p.SourceAmountBaseUnits, 10),
		SourceFundingMode: p.FundingMode, RequestedDestinationID: strPtr(p.RequestedDestinationID),
		SelectedRouteQuoteID: strPtr(p.SelectedQuoteID), HoldReasons: holds, FailureReason: strPtr(p.FailureReason), RequoteReason: strPtr(string(p.RequoteReason)),
		DeliveredAt: p.DeliveredAt, CreatedAt: p.CreatedAt}
}

func toOfframpPaymentCreated(v offramps.PaymentView) offrampPaymentResponse {
	out := toOfframpPayment(v.Payment)
	qs := toPayoutRouteQuotes(v.Quotes)
	out.Quotes = &qs
	return out
}
