package wallet

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/corridorhq/corridor/core"
)

// Asset is a faucet asset (docs/api.md Drip.asset) and the asset of a wallet balance.
type Asset string

const (
	AssetUSDC Asset = "usdc"
	AssetETH  Asset = "eth"
)

// Decimals of each asset as the chain holds it: USDC 6, ETH 18 (wei).
func (a Asset) Decimals() int32 {
	if a == AssetETH {
		return 18
	}
	return core.USDCDecimals
}

// Faucet amounts of docs/api.md (Limits), in base units: USDC default 250 and at most 1000 per drip;
// ETH default and at most 0.02 per drip. Both fit int64 with room to spare.
const (
	FaucetUSDCDefault int64 = 250_000_000
	FaucetUSDCMax     int64 = 1_000_000_000
	FaucetETHDefault  int64 = 20_000_000_000_000_000
	FaucetETHMax      int64 = 20_000_000_000_000_000
)

// DripRequest is a validated faucet request.
type DripRequest struct {
	Asset           Asset
	AmountBaseUnits int64
}

// ParseDripRequest applies the faucet's rules: asset usdc (default) or eth; amount a decimal
// string parsed exactly (no more fraction digits than the asset has, never rounded), greater
// than zero and at most the asset's maximum; omitted, the asset's default.
func ParseDripRequest(asset, amount *string) (DripRequest, error) {
	req := DripRequest{Asset: AssetUSDC}
	if asset != nil {
		switch Asset(strings.ToLower(strings.TrimSpace(*asset))) {
		case AssetUSDC:
		case AssetETH:
			req.Asset = AssetETH
		default:
			return DripRequest{}, core.Invalid("asset", "must be usdc or eth")
		}
	}
	def, max := FaucetUSDCDefault, FaucetUSDCMax
	if req.Asset == AssetETH {
		def, max = FaucetETHDefault, FaucetETHMax
	}
	if amount == nil {
		req.AmountBaseUnits = def
		return req, nil
	}
	units, err := ParseAmount("amount", req.Asset, *amount)
	if err != nil {
		return DripRequest{}, err
	}
	switch {
	case units <= 0:
		return DripRequest{}, core.Invalid("amount", "must be greater than zero")
	case units > max:
		return DripRequest{}, core.Invalid("amount", fmt.Sprintf("must be at most %s %s per drip", FormatAmount(req.Asset, max), req.Asset))
	}
	req.AmountBaseUnits = units
	return req, nil
}

// ParseAmount parses an amount of asset with core's one amount parser, at the asset's decimals.
func ParseAmount(field string, asset Asset, s string) (int64, error) {
	return core.ParseAmount(field, int(asset.Decimals()), s)
}

// FormatAmount renders base units of asset as a decimal string without trailing zeros.
func FormatAmount(asset Asset, baseUnits int64) string {
	return decimal.New(baseUnits, -asset.Decimals()).String()
}

// FormatBigAmount renders a chain balance (base units, any size) as a decimal string.
func FormatBigAmount(asset Asset, baseUnits *big.Int) string {
	return decimal.NewFromBigInt(baseUnits, -asset.Decimals()).String()
}

// DripStatus is where a faucet drip stands (docs/api.md: SUBMITTED to CONFIRMED or FAILED).
type DripStatus string

const (
	DripSubmitted DripStatus = "SUBMITTED"
	DripConfirmed DripStatus = "CONFIRMED"
	DripFailed    DripStatus = "FAILED"
)

// Terminal reports whether the drip is over.
func (s DripStatus) Terminal() bool { return s == DripConfirmed || s == DripFailed }

// DripTrigger is an event of the faucet job.
type DripTrigger string

const (
	// DripSendStarted: the job is about to send the transaction. Recorded (and committed)
	// before the send, so a retried job knows a send may have happened and never sends again.
	DripSendStarted DripTrigger = "send_started"
	// DripSent: the node accepted the transaction; its hash is recorded before waiting.
	DripSent DripTrigger = "sent"
	// DripMined: the transaction succeeded on chain.
	DripMined DripTrigger = "mined"
	// DripFailedOnChain: the transaction reverted, was refused, or its outcome is unknowable.
	DripFailedOnChain DripTrigger = "failed"
)

// Drip is one faucet funding of a wallet (docs/api.md Drip).
type Drip struct {
	ID              string
	TenantID        string
	Environment     core.Environment
	WalletID        string
	Address         string // the wallet's (predicted) Safe address, funded even before deployment
	ChainID         int64
	Asset           Asset
	AmountBaseUnits int64
	Status          DripStatus
	TxHash          string // "" until the node accepted the transaction
	FailureReason   string
	// SendStartedAt is set when the job committed to sending; SendFromBlock is the chain's
	// latest block just before, where a search for the transaction would start.
	SendStartedAt *time.Time
	SendFromBlock uint64
	// Purpose is why the drip was sent: the faucet (the default), or a sandbox on-ramp's
	// credit, which the faucet's quotas and lists leave out.
	Purpose   DripPurpose
	CreatedAt time.Time
	UpdatedAt time.Time
}

// DripPurpose is why a drip was sent.
type DripPurpose string

const (
	DripForFaucet DripPurpose = "faucet"
	DripForRamp   DripPurpose = "ramp"
)

type dripTransition struct {
	from    DripStatus
	trigger DripTrigger
}

// dripTransitions is the drip state machine as data. SUBMITTED covers the whole time the job
// works (send started, hash recorded); the guards in Apply keep each step to once.
var dripTransitions = map[dripTransition]DripStatus{
	{DripSubmitted, DripSendStarted}:   DripSubmitted,
	{DripSubmitted, DripSent}:          DripSubmitted,
	{DripSubmitted, DripMined}:         DripConfirmed,
	{DripSubmitted, DripFailedOnChain}: DripFailed,
}

// Apply moves the drip by trigger or refuses with INVALID_STATE. Guards: a send starts once;
// a hash is recorded once and only after the send started; mined needs the hash.
func (d Drip) Apply(trigger DripTrigger, now time.Time, txHash string, fromBlock uint64, reason string) (Drip, error) {
	to, ok := dripTransitions[dripTransition{d.Status, trigger}]
	refuse := func(why string) (Drip, error) {
		return d, core.E(core.CodeInvalidState, "drip %s cannot take %s in %s: %s", d.ID, trigger, d.Status, why)
	}
	if !ok {
		return refuse("not a transition of the drip state machine")
	}
	switch trigger {
	case DripSendStarted:
		if d.SendStartedAt != nil {
			return refuse("the send already started")
		}
		d.SendStartedAt, d.SendFromBlock = &now, fromBlock
	case DripSent:
		if d.SendStartedAt == nil || d.TxHash != "" || txHash == "" {
			return refuse("a hash is recorded once, after the send started")
		}
		d.TxHash = txHash
	case DripMined:
		if d.TxHash == "" && txHash == "" {
			return refuse("no transaction hash")
		}
		if d.TxHash == "" {
			d.TxHash = txHash
		}
	case DripFailedOnChain:
		d.FailureReason = reason
	}
	d.Status, d.UpdatedAt = to, now
	return d, nil
}

// FaucetLimits bound drips over a rolling window, counted from the database. docs/api.md leaves the
// numbers open; DefaultFaucetLimits are ours.
type FaucetLimits struct {
	PerWallet int
	PerTenant int
	Window    time.Duration
}

// DefaultFaucetLimits: 10 drips per wallet and 50 per tenant per rolling hour.
var DefaultFaucetLimits = FaucetLimits{PerWallet: 10, PerTenant: 50, Window: time.Hour}

// WithDefaults fills unset limits from DefaultFaucetLimits.
func (l FaucetLimits) WithDefaults() FaucetLimits {
	if l.PerWallet <= 0 {
		l.PerWallet = DefaultFaucetLimits.PerWallet
	}
	if l.PerTenant <= 0 {
		l.PerTenant = DefaultFaucetLimits.PerTenant
	}
	if l.Window <= 0 {
		l.Window = DefaultFaucetLimits.Window
	}
	return l
}

// QuotaExceeded is the RATE_LIMITED error of a full window. limitN is the limit reached and
// nthNewest the creation time of the limit-th newest drip in the window: once it ages out of the
// window a drip is allowed again, so that is when the caller should retry.
// details.retryAfterSeconds is a string of whole seconds, as the general rate limit writes it.
func (l FaucetLimits) QuotaExceeded(scope string, limitN int, nthNewest, now time.Time) *core.Error {
	wait := nthNewest.Add(l.Window).Sub(now)
	if wait < time.Second {
		wait = time.Second
	}
	secs := int64((wait + time.Second - 1) / time.Second)
	return (&core.Error{Code: core.CodeRateLimited,
		Message: fmt.Sprintf("the faucet allows %d drips per %s per %s; retry after %d seconds", limitN, scope, l.Window, secs)}).
		WithDetails(map[string]any{"scope": scope, "limit": limitN, "windowSeconds": int64(l.Window / time.Second),
			"retryAfterSeconds": fmt.Sprint(secs)})
}
