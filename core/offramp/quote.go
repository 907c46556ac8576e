package offramp

import (
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/recipient"
)

// DefaultQuoteLifetime is docs/api.md's route quote lifetime.
const DefaultQuoteLifetime = 120 * time.Second

// QuoteStatus is a quote's lifecycle. Its terms never change; only whether it is usable does.
type QuoteStatus string

const (
	QuoteActive     QuoteStatus = "ACTIVE"
	QuoteSuperseded QuoteStatus = "SUPERSEDED" // a newer set replaced it
	QuoteExpired    QuoteStatus = "EXPIRED"    // expired by time or by the sandbox helper
)

// SpeedPreference orders a quote set.
type SpeedPreference string

const (
	SpeedFastest  SpeedPreference = "FASTEST"
	SpeedCheapest SpeedPreference = "CHEAPEST"
)

// Terms are one payout provider's pricing, from configuration.
type Terms struct {
	Provider                 string
	FeeBps                   int64 // proportional fee in basis points of the source amount
	FixedFeeBaseUnits        int64
	NetworkFeeBaseUnits      int64
	EstimatedDeliverySeconds int
	RequiresPrefunding       bool
	// LiquidityBaseUnits caps one payout on this route; 0 means no cap.
	LiquidityBaseUnits int64
}

// Quote is one immutable route quote of a versioned set.
type Quote struct {
	ID                       string
	PaymentID                string
	SetVersion               int
	DestinationID            string
	DestinationType          recipient.DestinationType
	Provider                 string
	SourceAmountBaseUnits    int64
	SourceAssetID            string
	DestinationAmountMinor   int64
	DestinationCurrency      string
	ProviderFeeMinor         int64
	NetworkFeeMinor          int64
	ExchangeRate             string
	EstimatedDeliverySeconds int
	RequiresBridge           bool
	RequiresConversion       bool
	RequiresPrefunding       bool
	Status                   QuoteStatus
	ExpiresAt                time.Time
	CreatedAt                time.Time
	// DeliverBaseUnits reaches the recipient side; FeeBaseUnits the platform's fees. They sum
	// to the source amount exactly.
	DeliverBaseUnits int64
	FeeBaseUnits     int64
}

// Usable reports whether the quote can still be selected or confirmed at now.
func (q Quote) Usable(now time.Time) bool {
	return q.Status == QuoteActive && now.Before(q.ExpiresAt)
}

// PayoutRoute is one way to pay the recipient out: a destination paired with its provider's
// terms, before pricing. (Not an HTTP route: a payout route becomes a route quote once priced.)
type PayoutRoute struct {
	DestinationID   string
	DestinationType recipient.DestinationType
	Network         string // on-chain destinations only
	Terms           Terms
}

// QuoteInput is what a quote set is priced from.
type QuoteInput struct {
	PaymentID             string
	SetVersion            int
	SourceAmountBaseUnits int64
	SourceAssetID         string
	SourceChainKey        string
	Speed                 SpeedPreference
	Now                   time.Time
	Lifetime              time.Duration
}

// currency returns the destination currency and how many base units make one minor unit.
func currency(t recipient.DestinationType) (string, int64) {
	switch t {
	case recipient.DestAppWalletA, recipient.DestAppWalletB:
		return "USD", 10_000 // cents
	}
	return "USDC", 1
}

// Price prices one payout route. Fees are taken from the source amount; for destinations in cents the
// sub-cent remainder is part of the platform's fee, so the recipient receives a whole number of
// minor units and the parts sum to the source amount exactly. A route whose fees eat the whole
// amount has no quote (ok false).
func Price(in QuoteInput, r PayoutRoute) (Quote, bool) {
	amount := in.SourceAmountBaseUnits
	fee := amount/10_000*r.Terms.FeeBps + (amount%10_000)*r.Terms.FeeBps/10_000 + r.Terms.FixedFeeBaseUnits
	if r.DestinationType == recipient.DestServiceBalance {
		fee = 0 // the internal rail is fee-free
	}
	network := r.Terms.NetworkFeeBaseUnits
	if r.DestinationType == recipient.DestServiceBalance {
		network = 0
	}
	net := amount - fee - network
	code, perMinor := currency(r.DestinationType)
	minor := net / perMinor
	if net <= 0 || minor <= 0 {
		return Quote{}, false
	}
	deliver := minor * perMinor
	return Quote{
		ID: core.NewID(core.PrefixRouteQuote), PaymentID: in.PaymentID, SetVersion: in.SetVersion,
		DestinationID: r.DestinationID, DestinationType: r.DestinationType, Provider: r.Terms.Provider,
		SourceAmountBaseUnits: amount, SourceAssetID: in.SourceAssetID,
		DestinationAmountMinor: minor, DestinationCurrency: code,
		ProviderFeeMinor: fee / perMinor, NetworkFeeMinor: network / perMinor, ExchangeRate: "1",
		EstimatedDeliverySeconds: r.Terms.EstimatedDeliverySeconds,
		RequiresBridge:           r.DestinationType == recipient.DestOnchainWallet && r.Network != in.SourceChainKey,
		RequiresConversion:       code != "USDC",
		RequiresPrefunding:       r.Terms.RequiresPrefunding,
		Status:                   QuoteActive, ExpiresAt: in.Now.Add(in.Lifetime), CreatedAt: in.Now,
		DeliverBaseUnits: deliver, FeeBaseUnits: amount - deliver,
	}, true
}

// PriceSet prices every payout route and orders the set: FASTEST by delivery time, CHEAPEST
// (the default) by what the recipient receives, highest first; ties by destination id so the
// same input always gives the same order.
func PriceSet(in QuoteInput, routes []PayoutRoute) []Quote {
	out := make([]Quote, 0, len(routes))
	for _, r := range routes {
		if q, ok := Price(in, r); ok {
			out = append(out, q)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if in.Speed == SpeedFastest && a.EstimatedDeliverySeconds != b.EstimatedDeliverySeconds {
			return a.EstimatedDeliverySeconds < b.EstimatedDeliverySeconds
		}
		if a.DeliverBaseUnits != b.DeliverBaseUnits {
			return a.DeliverBaseUnits > b.DeliverBaseUnits
		}
		if a.EstimatedDeliverySeconds != b.EstimatedDeliverySeconds {
			return a.EstimatedDeliverySeconds < b.EstimatedDeliverySeconds
		}
		return a.DestinationID < b.DestinationID
	})
	return out
}
