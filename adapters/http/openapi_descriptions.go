package http

import (
	"fmt"
	"strings"
)

// componentDescriptions describe the resources a partner meets first, in docs/api.md's and the
// capability docs' words. Every other component is described by where it is used (use).
var componentDescriptions = map[string]string{ //nolint:gosec // schema descriptions, not credentials
	"Tenant":            "A partner's account: every key, member, wallet and payment belongs to one tenant, in one environment (TEST or LIVE).",
	"Member":            "A person with access to the tenant through identity-provider sessions, with a role (OWNER, ADMIN, MEMBER) that decides their scopes.",
	"ApiKey":            "An API key's metadata: its scopes, environment and who created it; the plaintext is shown once, at creation.",
	"Wallet":            "A Safe smart-account wallet on the tenant's chain: its address (predicted at once, deployed by a job), owners and signature threshold.",
	"WalletDetail":      "A wallet with its live USDC and ETH balances read from the chain (null when the chain cannot be read).",
	"SafePayment":       "A USDC payment (or an arbitrary Safe transaction) from a wallet: proposed with a safeTxHash the owners sign, executed by the relayer once the threshold is met (docs/payments.md).",
	"Checkout":          "A hosted checkout (chk_…): a payment request priced in USD that a payer settles in USDC at a fresh deposit address through the payment page (docs/checkout.md).",
	"CheckoutCreate":    "A checkout as created: its payment page (payment_url) and the deposit address the payer sends USDC to.",
	"OfframpPayment":    "A payment to a phone number that the recipient takes out through a payout route (service balance, app wallet, on-chain), through its state machine (docs/offramp.md).",
	"Claim":             "A pending claim: an off-ramp payment to a phone not yet verified, held in escrow until the recipient claims it by SMS link or it expires (docs/claims.md).",
	"Card":              "A card spending from a wallet's Safe (or a funding card account), with its limits and status (docs/cards.md).",
	"CardAuthorization": "A card authorization: approved or declined against the card's limits, policies and the Safe's balance, then captured or reversed.",
	"Agent":             "An AI agent principal of the tenant, with spending limits and optionally a wallet and a card of its own (docs/agents.md).",
	"Policy":            "A spending policy: versioned rules evaluated on payments, card authorizations and off-ramps of the subjects it is attached to (docs/policies.md).",
	"Invoice":           "An escrow invoice between tenants: held in a 2-of-3 Safe of payer, payee and arbiter until released or refunded (docs/invoices.md).",
	"TreasuryAccount":   "A treasury account: buckets that are Safe wallets, with rules that sweep between them and a simulated yield in TEST (docs/treasury.md).",
	"Event":             "A state change a partner cares about (docs/webhooks.md): listed by GET /v1/events and delivered to webhook endpoints.",
	"WebhookEndpoint":   "A URL the tenant's events are delivered to, signed with the endpoint's secret (shown once) and retried for 3 days.",
	"WebhookPayload":    "The body of every webhook delivery: the event, with event and created_at repeating type and createdAt in docs/api.md's spelling.",
	"ErrorEnvelope":     "Every non-2xx answer of the canonical surface (docs/api.md Errors): a stable code, a message, the request's id and optional details.",
	"SecondaryError":    "Every error of the secondary surface: {error: {code, message, details}} with lower-case codes (docs/api.md, Secondary surface).",
	"Capabilities":      "What this deployment serves for the caller's environment: the build, chains and features.",
	"Build":             "The build that answers: the version the OpenAPI document's info.version also shows, and its VCS commit.",
}

// use records where a component appears, the first time.
func (g *schemaGen) use(name, where string) {
	if _, ok := g.uses[name]; !ok {
		g.uses[name] = where
	}
}

// useBody records a component used as the body of an operation: role is "request" or a
// status ("201").
func (g *schemaGen) useBody(schema map[string]any, r Endpoint, role string) {
	ref, _ := schema["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return
	}
	if role == "request" {
		g.use(name, fmt.Sprintf("The request body of %s %s (%s).", r.Method, r.Path, operationID(r)))
		return
	}
	g.use(name, fmt.Sprintf("The %s answer of %s %s (%s).", role, r.Method, r.Path, operationID(r)))
}

// describeComponents gives every component without a description one: its entry in
// componentDescriptions, else where it is used.
func (g *schemaGen) describeComponents() {
	for name, c := range g.components {
		schema, ok := c.(map[string]any)
		if !ok || schema["description"] != nil {
			continue
		}
		if d, ok := componentDescriptions[name]; ok {
			schema["description"] = d
		} else if d, ok := g.uses[name]; ok {
			schema["description"] = d
		}
	}
}

// commonProperties describe properties by the name they share across resources, in the
// conventions of docs/architecture.md and docs/api.md; a field's own description tag wins.
var commonProperties = map[string]string{ //nolint:gosec // property descriptions, not credentials
	"id":                       "The object's id: opaque, type-prefixed and time-ordered (wal_…, pay_…).",
	"status":                   "The object's state; the capability's docs list the states and their transitions.",
	"createdAt":                "When it was created (RFC 3339, UTC).",
	"created_at":               "When it was created (RFC 3339, UTC).",
	"updatedAt":                "When it last changed (RFC 3339, UTC).",
	"expiresAt":                "When it expires (RFC 3339, UTC).",
	"total":                    "How many objects match, across every page (skip/take).",
	"name":                     "A name the partner chose, shown in the console.",
	"environment":              "TEST or LIVE: the environment of the credential that created it (docs/decisions/tenancy.md); a key sees only its own.",
	"chainId":                  "The EVM chain id (84532 Base Sepolia in TEST, 8453 Base in LIVE).",
	"address":                  "An EVM address (0x…, 40 hex digits).",
	"asset":                    "The asset: USDC (6 decimals) or ETH (18).",
	"currency":                 "The currency of the amount.",
	"amount":                   "The amount as a decimal string in the asset's unit (not base units).",
	"type":                     "The kind of object or destination; the capability's docs list the values.",
	"email":                    "An email address.",
	"threshold":                "How many owner signatures a Safe transaction needs.",
	"label":                    "A label the partner chose.",
	"failureReason":            "Why it failed; null unless it failed.",
	"displayName":              "The person's display name, null when unknown.",
	"role":                     "The role, which decides the scopes it holds (docs/api.md, Roles).",
	"scopes":                   "The scopes held (docs/api.md, Scopes).",
	"owners":                   "The Safe's owners: addresses and roles.",
	"description":              "Free text the partner chose.",
	"reference":                "The partner's own reference, unique per tenant and environment.",
	"allowedMcc":               "Merchant category codes (4 digits, or a prefix) a card may spend at; empty: any not blocked.",
	"blockedMcc":               "Merchant category codes (4 digits, or a prefix) a card may never spend at.",
	"mcc":                      "The merchant category code (ISO 18245, 4 digits).",
	"handle":                   "A directory handle (@name) that resolves to a wallet.",
	"kind":                     "The kind of object; the capability's docs list the values.",
	"enabled":                  "Whether it is active.",
	"code":                     "A one-time code (6 digits) or a stable error code.",
	"decimals":                 "How many fraction digits the asset has (USDC 6, ETH 18).",
	"memo":                     "A note kept with the payment, shown to the tenant only.",
	"metadata":                 "String keys and values the partner attaches; returned as given.",
	"phone":                    "A phone number in E.164 (+15555550123).",
	"phoneMasked":              "The phone number with all but its last digits masked.",
	"transactionHash":          "The on-chain transaction's hash (0x…, 64 hex digits).",
	"txHash":                   "The on-chain transaction's hash (0x…, 64 hex digits).",
	"signature":                "A 65-byte secp256k1 signature, 0x-prefixed hex (r ‖ s ‖ v, v 27 or 28).",
	"secret":                   "A secret shown once, in the answer that creates or rotates it; null afterwards.",
	"url":                      "An http(s) URL.",
	"last4":                    "The card number's last four digits.",
	"chainKey":                 "The chain as a CAIP-2 key (eip155:84532 in TEST, eip155:8453 in LIVE).",
	"attemptsRemaining":        "How many more codes may be tried before the challenge is refused.",
	"holdReasons":              "Why it is held, when it is (the capability's docs list the reasons); empty otherwise.",
	"quotes":                   "The payout routes quoted for it, one of which the recipient picks (docs/offramp.md).",
	"payeeName":                "The payee's name, as the payer is shown it.",
	"intervalSeconds":          "How often the rule runs, in seconds.",
	"direction":                "on/ON: USD in, USDC credited to the wallet; off/OFF: USDC out of the wallet, USD paid out.",
	"message":                  "A human-readable message; it may change, so match on code.",
	"statusCode":               "The HTTP status of the answer, repeated in its body.",
	"details":                  "Details particular to the error code (docs/api.md); absent when there are none.",
	"transaction_hash":         "The on-chain transaction's hash (0x…, 64 hex digits).",
	"deposit_address":          "The address the payer sends USDC to.",
	"merchantName":             "The merchant's name, as the card network reports it.",
	"simulated":                "True when the sandbox simulated it: no provider and no real money were involved.",
	"redeemed":                 "Whether a recipient has redeemed the claim.",
	"declineReason":            "Why it was declined (a stable code such as MCC_BLOCKED); null unless it was.",
	"safeNonce":                "The Safe nonce the transaction uses.",
	"walletStatus":             "The status of the bucket's Safe wallet (deployed by a job).",
	"clockOffsetDays":          "How many days the account's simulated clock runs ahead (sandbox).",
	"daysAdvanced":             "How many days this call moved the clock.",
	"lastSkipReason":           "Why the rule's last window did nothing (such as PREVIOUS_SWEEP_PENDING); null until one did.",
	"resendsInWindow":          "How many times the claim link was resent in the last 24 hours (3 allowed).",
	"paymentStatus":            "The status of the payment it refers to, read live.",
	"evidence":                 "Evidence of delivery the payee gives (a tracking number, a link).",
	"verified":                 "Whether it is verified.",
	"safeTxHash":               "The Safe transaction's EIP-712 hash the owners sign (0x…, 64 hex digits); not an on-chain transaction's hash.",
	"chain_id":                 "The EVM chain id (84532 Base Sepolia in TEST, 8453 Base in LIVE).",
	"has_more":                 "Whether more objects follow this page.",
	"sha256":                   "The SHA-256 digest of the policy version's document.",
	"signatures":               "The owners' signatures collected so far.",
	"signer":                   "The owner address that signed.",
	"durationMs":               "How long it took, in milliseconds.",
	"succeeded":                "Whether the attempt succeeded.",
	"eventType":                "The type of the event delivered (docs/webhooks.md).",
	"redeliveryOf":             "The delivery this one redelivers; null for a first delivery.",
	"attempts":                 "The delivery's attempts.",
	"failingSince":             "When deliveries to it started failing; null while they succeed.",
	"disabledReason":           "Why it was disabled; null while it is not.",
	"estimatedDeliverySeconds": "How long delivery is expected to take, in seconds.",
	"destinationCurrency":      "The currency the recipient receives (ISO 4217).",
	"requiresBridge":           "Whether the route moves the funds across chains.",
	"requiresConversion":       "Whether the route converts the funds into another currency.",
	"approveNewPayees":         "Whether a payment to a payee not yet paid needs a second-factor approval; absent in a PUT: off.",
	"requireSavedPayees":       "Whether payments go only to saved contacts (403 NEW_PAYEE_NOT_SAVED otherwise); absent in a PUT: off.",
	"held":                     "The amount held for payments in flight, not available to spend, in the asset's unit.",
	"required_confirmations":   "How many confirmations the deposit needs before the checkout completes.",
	"lagBlocks":                "How many blocks the indexer is behind the chain's head; null when unknown.",
	"latestBlock":              "The chain's latest block; null when the chain cannot be read.",
	"indexedThroughBlock":      "The last block the indexer has read; null before it has read one.",
	"onchainBalance":           "The balance read from the chain; null when the chain could not be read.",
	"ledgerBalance":            "The balance the ledger books.",
	"drift":                    "The ledger balance less the on-chain one: positive when the ledger shows more than the chain holds; null when the chain could not be read.",
	"balanced":                 "Whether the debits equal the credits.",
	"pendingDebits":            "The sum of the pending (not yet posted) debits.",
	"pendingCredits":           "The sum of the pending (not yet posted) credits.",
	"postedDebits":             "The sum of the posted debits.",
	"postedCredits":            "The sum of the posted credits.",
	"body":                     "The text as sent.",
	"asOf":                     "The instant the balances are read at (RFC 3339, UTC): the asOf asked for; null for now.",
	"chain":                    "A cardholder card's crypto account chain: solana, world_chain or base; null for a wallet card or a card issued without one (absent in a request: none).",
	"cryptoAccountType":        "A cardholder card's crypto account type: standard (the default when a chain or address is given) or bridge_wallet; null for a wallet card or a card issued without a crypto account.",
	"credentials":              "The tenant's credentials (BUSINESS_IDENTITY) with their statuses; an ACTIVE one is needed to create payout destinations.",
	"allowAutomaticFallback":   "Whether the recipient lets a payout fall back automatically to another of their destinations; recorded as given (routing does not act on it yet).",
	"subjectType":              "The kind of subject a policy is attached to: wallet, card, agent, treasury_account or service_balance.",
}

// listedObjects describes the array of a list answer, by its name.
const listedObjects = "The listed objects: the page asked for (skip/take) where the list pages."

// listNames are the names of list answers' arrays.
var listNames = []string{"cards", "agents", "sweeps", "ramps", "factors", "checkouts", "authorizations", "deliveries",
	"messages", "entries", "drips", "apiKeys", "attachments", "phoneAliases", "bills", "contacts", "invoices", "members",
	"payoutDestinations", "endpoints", "versions", "policies", "payments", "accounts", "cardholders", "data", "routes"}

func init() {
	for _, name := range listNames {
		if _, ok := commonProperties[name]; !ok {
			commonProperties[name] = listedObjects
		}
	}
}

// propertyDescription is a property's description when its field has no tag of its own: by
// its name in commonProperties, or by its suffix (walletId, deliveredAt, dailyUsd,
// amountBaseUnits).
func propertyDescription(name string) string {
	if d, ok := commonProperties[name]; ok {
		return d
	}
	switch {
	case strings.HasSuffix(name, "BaseUnits"):
		return "The same amount in the asset's base units (USDC: 6 decimals), as an integer string."
	case strings.HasSuffix(name, "TxHash"):
		return "The hash of the on-chain transaction (0x…, 64 hex digits); null until there is one."
	case strings.HasSuffix(name, "Address") && len(name) > 7:
		return "An EVM address (0x…, 40 hex digits)."
	case strings.HasSuffix(name, "Masked"):
		return "The phone number with all but its last digits masked."
	case strings.HasSuffix(name, "Bps"):
		return "In basis points (100 bps = 1%)."
	case strings.HasSuffix(name, "_at"):
		return "When it happened (RFC 3339, UTC); null until it has."
	case strings.HasSuffix(name, "_id"):
		return "The id of the " + strings.ReplaceAll(strings.TrimSuffix(name, "_id"), "_", " ") + " it refers to."
	case strings.HasSuffix(name, "Minor"):
		return "An amount in the minor units of its currency (cents for USD), as an integer string."
	case strings.HasSuffix(name, "Usd"):
		return "A USD amount as a decimal string (docs/api.md: digits, at most 6 fraction digits, no exponent or sign)."
	case strings.HasSuffix(name, "At") && len(name) > 2:
		return "When it happened (RFC 3339, UTC); null until it has."
	case strings.HasSuffix(name, "Id") && len(name) > 2:
		return "The id of the " + strings.ToLower(splitCamel(strings.TrimSuffix(name, "Id"))) + " it refers to."
	}
	return ""
}

// splitCamel writes a camelCase name as words ("payoutDestination" → "payout destination").
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
