package core

import (
	"crypto/rand"
	"encoding/base32"
	"strings"

	"github.com/google/uuid"
)

// Identifier prefixes (docs/architecture.md). Ids are opaque, type-prefixed and time-ordered.
const (
	PrefixTenant     = "ten"
	PrefixMember     = "mem"
	PrefixAPIKey     = "key"
	PrefixRequest    = "req"
	PrefixAccount    = "acc"
	PrefixTransfer   = "trf"
	PrefixWallet     = "wal"
	PrefixPayment    = "pay"
	PrefixPolicy     = "pol"
	PrefixOffRamp    = "ofp"
	PrefixClaim      = "clm"
	PrefixRouteQuote = "rq"
	PrefixDest       = "dst"
	PrefixDrip       = "drp"
	PrefixDecision   = "dec"
	PrefixVersion    = "pv"
	PrefixAttachmnt  = "pat"
	// Cards.
	PrefixCard           = "card"
	PrefixCardholder     = "chd"
	PrefixCardAuth       = "cau"
	PrefixCardSettlement = "cst"
	// Agents.
	PrefixAgent = "agt"
	// Treasury.
	PrefixTreasuryAccount = "tra"
	PrefixTreasuryBucket  = "bkt"
	PrefixTreasuryRule    = "trl"
	PrefixSweep           = "swp"
	// Ramps.
	PrefixRamp = "rmp"
	// Contacts and two-factor approval.
	PrefixContact   = "con"
	PrefixFactor    = "tfa"
	PrefixChallenge = "tfc"
	// Events and webhooks.
	PrefixEvent           = "evt"
	PrefixWebhookEndpoint = "whe"
	PrefixWebhookDelivery = "whd"
)

// crockford is Crockford's base32 alphabet in lower case: sortable, no ambiguous letters.
var crockford = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns prefix + "_" + 26 base32 characters of a UUIDv7, so ids sort by creation time.
func NewID(prefix string) string {
	u, err := uuid.NewV7()
	if err != nil {
		panic("core: uuidv7: " + err.Error())
	}
	return prefix + "_" + crockford.EncodeToString(u[:])
}

// HasPrefix reports whether id looks like an id of the given type. It guards lookups from
// obviously wrong input; it is not a security check.
func HasPrefix(id, prefix string) bool {
	return strings.HasPrefix(id, prefix+"_") && len(id) == len(prefix)+1+26
}

// RandomToken returns n random bytes from the CSPRNG encoded in lower-case base32 (no
// underscores, safe inside API key strings and URLs).
func RandomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("core: crypto/rand: " + err.Error())
	}
	return crockford.EncodeToString(b)
}
