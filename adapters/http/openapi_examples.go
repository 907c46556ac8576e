package http

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Examples are derived from the DTO types, so every request and response in the document
// carries one without a hand-kept catalogue that could drift: a field's `example:"…"` tag wins;
// otherwise its enum's first value, its format, its pattern (patternExamples) or its name
// (exampleByName) gives a value that validates against the field's schema. The document's
// validation test checks every example against its schema, so a new pattern without an
// example fails there.

// exampleTime is the instant every timestamp example shows.
const exampleTime = "2026-11-27T10:00:00.000000Z"

// exampleAddress is the EVM address every address example shows.
const exampleAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

// patternExamples give a value for each pattern a DTO declares.
var patternExamples = map[string]string{
	`^-?[0-9]+(\.[0-9]+)?$`:    "25.5",
	`^[0-9]+(\.[0-9]+)?$`:      "25.5",
	`^0x([0-9a-fA-F]{2})*$`:    "0x",
	`^0x[0-9a-fA-F]{40}$`:      exampleAddress,
	`^0x[0-9a-fA-F]{130}$`:     "0x" + strings.Repeat("ab", 65),
	`^[0-9]{4}$`:               "5411",
	`^[0-9]{6}$`:               "123456",
	`^[a-z0-9]+(-[a-z0-9]+)*$`: "acme-payouts",
	`^0x[0-9a-fA-F]{64}$`:      "0x" + strings.Repeat("1f", 32),
	`^[A-Z]{3}$`:               "USD",
	`^\+[1-9][0-9]{6,14}$`:     "+15555550123",
	`^[0-9]{1,19}$`:            "1000000",
	`^@?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9]$`: "acme",
}

// idPrefixes map a field's stem to the id prefix of the resource it names (walletId: wal_…).
var idPrefixes = map[string]string{
	"tenant": "ten", "member": "mem", "apiKey": "key", "key": "key", "account": "acc", "transfer": "trf",
	"wallet": "wal", "payment": "pay", "policy": "pol", "offrampPayment": "ofp", "claim": "clm",
	"quote": "rq", "routeQuote": "rq", "destination": "dst", "drip": "drp", "decision": "dec",
	"version": "pv", "attachment": "pat", "card": "card", "cardholder": "chd", "authorization": "cau",
	"agent": "agt", "treasuryAccount": "tra", "bucket": "bkt", "rule": "trl", "sweep": "swp",
	"ramp": "rmp", "contact": "con", "factor": "tfa", "challenge": "tfc", "twofaChallenge": "tfc",
	"event": "evt", "endpoint": "whe", "delivery": "whd", "invoice": "inv", "checkout": "chk",
	"refund": "crf", "bill": "bil", "settlement": "cst", "escrowClaim": "clm", "decisionLog": "dec",
	"policyDecision": "dec", "activeVersion": "pv", "holdTransfer": "trf", "fundingCardAccount": "acc",
	"resolvedBy": "mem", "subject": "agt", "target": "wal", "reference": "pay", "route": "rq",
	"request": "req",
}

// schemaIDPrefixes give the id prefix of each schema whose objects carry an id: the example of
// a Wallet's id is wal_…, of an Event's evt_…. A schema with an id and no entry fails the
// document's example test, so a new resource gets its prefix here.
var schemaIDPrefixes = map[string]string{
	"Agent": "agt", "ApiKey": "key", "ApiKeyCreate": "key", "Challenge": "tfc", "Checkout": "chk",
	"CheckoutCreate": "chk", "CheckoutPageStatus": "chk", "CheckoutRefund": "crf", "Contact": "con",
	"Deposit": "trf", "Destination": "dst", "Drip": "drp", "Event": "evt", "Factor": "tfa",
	"FactorEnroll": "tfa", "LedgerAccount": "acc", "Member": "mem", "MemberInvite": "mem",
	"MemberRevoke": "mem", "PhoneAlias": "pha", "SafePayment": "pay", "SecondaryTransaction": "pay",
	"SmsMessage": "sms", "Tenant": "ten", "Wallet": "wal", "WalletDetail": "wal",
	"WebhookDelivery": "whd", "WebhookEndpoint": "whe", "WebhookPayload": "evt", "AgentActivityItem": "pay",
	"RequestLog": "rql", "AdminTenant": "ten", "AdminDisabledEndpoint": "whe", "AdminPayment": "ofp", "AdminFailedJob": "job",
}

// exampleIDSuffix is the 26 base32 characters every example id shares after its prefix.
const exampleIDSuffix = "_06h0c8y3a9xq2v5m7k1d4f6g8j"

// exampleIDs are ids that are not ours: the identity provider's user, an issuer's card, an
// asset of the chain registry, a key's public part.
var exampleIDs = map[string]string{
	"userId": "did:privy:cm3x9v2k40001abcd", "privyUserId": "did:privy:cm3x9v2k40001abcd",
	"issuerCardId": "ic_1QhR7sKz4mYw2L", "sourceAssetId": "usdc-base-sepolia", "assetId": "usdc-base-sepolia",
	"pubId": "k7d2m9q4x8",
}

// exampleNames are realistic values of fields whose name alone would otherwise be the example.
var exampleNames = map[string]string{ //nolint:gosec // example values for the document, not credentials
	"failureReason": "the payout provider rejected the account number", "description": "Order #1042: 3 seats",
	"label": "Operating account", "evidence": "signed delivery note, 2026-11-27", "holdReasons": "NEW_COUNTERPARTY",
	"sourceChainKey": "base-sepolia", "chainKey": "base-sepolia", "chain": "base-sepolia", "sourceFundingMode": "TENANT_WALLET",
	"available": "1250.5", "availableBaseUnits": "1250500000", "pendingCredits": "0", "pendingCreditsBaseUnits": "0",
	"pendingDebits": "25.5", "pendingDebitsBaseUnits": "25500000", "posted": "1276", "postedBaseUnits": "1276000000",
	"held": "25.5", "heldBaseUnits": "25500000", "total": "1276", "totalBaseUnits": "1276000000",
	"drift": "0", "driftBaseUnits": "0", "refundable": "25.5", "type": "payment", "status": "PENDING",
	"paymentStatus": "COMPLETED", "walletStatus": "ACTIVE", "claimStatus": "OPEN", "cryptoAccountType": "SAFE",
	"last4": "4242", "destinationHandle": "@acme", "handle": "acme", "memo": "Invoice 1042", "note": "Invoice 1042",
	"signer": exampleAddress, "data": "0x", "to": exampleAddress, "reference": "INV-1042", "provider": "mock",
	"scopes": "payments:read", "counterparty": exampleAddress, "secret": "whsec_4f9d2c7b1a8e6f3d5c2b9a7e4f1d8c6b",
	"allowedMcc": "5411", "blockedMcc": "7995", "mcc": "5411", "disabledReason": "every attempt failed for 3 days",
	"events": "safe_payment.completed", "sha256": "9f2c4e1a7b3d8f6e2c5a9b1d4e7f3a6c8b2d5e9f1a4c7b3e6d8f2a5c9b1e4d7f",
	"payerDecision": "APPROVED", "verificationReason": "the signature matches the registered key",
	"declineReason": "over the card's daily limit", "settlementError": "the relayer ran out of gas",
	"day": "500", "week": "2000", "month": "5000", "lastSkipReason": "the source bucket is below its floor",
	"kind": "payment", "destination": exampleAddress, "maskedLabel": "•••• 6789", "fiatRef": "MOCK-7Q2K9D",
	"slug": "acme-payouts", "reason": "the customer asked to cancel", "key": "order", "destinationCurrency": "MXN",
	"exchangeRate": "17.1523", "networkFeeMinor": "12", "providerFeeMinor": "150", "error": "connection refused",
	"eventType": "safe_payment.completed", "environment": "TEST", "nextCursor": "eyJza2lwIjoxMDB9",
	"sigNonce": "7", "signature": "0x" + strings.Repeat("ab", 65), "apiVersion": "1", "code": "VALIDATION_FAILED",
	"redeliveryOf": "whd" + exampleIDSuffix, "role": "DEVELOPER", "businessIdentityStatus": "VERIFIED",
	"accountKind": "TENANT_WALLET", "accountReference": "wal" + exampleIDSuffix, "postedCredits": "1300",
	"postedCreditsBaseUnits": "1300000000", "postedDebits": "24", "postedDebitsBaseUnits": "24000000",
	"rule": "daily sweep above 5000", "body": "Your Corridor code is 482913", "purpose": "claim_link",
	"toMasked": "+1 •••-•••-0123", "problem": "the ledger balance differs from the chain by 0.5 USDC",
	"inviteToken": "inv_9d4c2a7f1e8b6d3c5a2f9e7d4b1c8a6f", "token": "clt_3f8a1d6c9e2b7f4a5d8c1e6b9f2a7d4c",
	"stillOwnerOfWalletIds": "wal" + exampleIDSuffix, "destinationLabel": "BBVA •••• 6789",
	"otpauthUri":     "otpauth://totp/Corridor:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Corridor",
	"transaction_id": "pay" + exampleIDSuffix,
	"method":         "GET", "route": "/v1/wallets/{id}",
	"event": "safe_payment.completed", "payment_id": "pay" + exampleIDSuffix, "wallet_id": "wal" + exampleIDSuffix,
}

// example is the example of a body DTO, false for a text body.
func (g *schemaGen) example(dto any) (any, bool) {
	switch d := dto.(type) {
	case string:
		return nil, false
	case OneOf:
		return g.example(d[0])
	case OneObject:
		return g.example(d[0])
	case map[string]any:
		return map[string]any{"openapi": OpenAPIVersion}, true
	}
	return exampleOf(reflect.TypeOf(dto), "", nil), true
}

// exampleOf is an example value of a Go type; name and tag are the field's, when it is one.
func exampleOf(t reflect.Type, name string, tag *reflect.StructTag) any {
	if tag != nil {
		if v, ok := tag.Lookup("example"); ok {
			return typedExample(t, v)
		}
	}
	switch {
	case t.Kind() == reflect.Pointer:
		return exampleOf(t.Elem(), name, tag)
	case t == timeType:
		return exampleTime
	case t == jsonDecimalType:
		return json.Number("131072.01")
	case t.Kind() == reflect.Struct:
		return exampleObject(t)
	case t.Kind() == reflect.Slice:
		return []any{exampleOf(t.Elem(), name, tagWithoutExample(tag))}
	case t.Kind() == reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{}
		}
		return map[string]any{"key": exampleOf(t.Elem(), "", nil)}
	case t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.Bool:
		return true
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return 1
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return 1.5
	}
	return exampleString(name, tag)
}

// tagWithoutExample keeps a field's oas tag for the items of an array field.
func tagWithoutExample(tag *reflect.StructTag) *reflect.StructTag {
	if tag == nil {
		return nil
	}
	kept := reflect.StructTag(`oas:"` + tag.Get("oas") + `"`)
	return &kept
}

// typedExample reads an example tag as the field's type: a number for a number field.
func typedExample(t reflect.Type, v string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == jsonDecimalType:
		return json.Number(v)
	case t.Kind() == reflect.Bool:
		return v == "true"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		n, _ := strconv.Atoi(v)
		return n
	case t.Kind() == reflect.Slice:
		return strings.Split(v, "|")
	}
	return v
}

// exampleObject shows every field a response carries; an optional field that is omitted when
// empty is left out unless it has an example of its own, so a request example stays minimal.
func exampleObject(t reflect.Type) map[string]any {
	out := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range exampleObject(f.Type) {
				out[k] = v
			}
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		_, hasExample := f.Tag.Lookup("example")
		optional := slices.Contains(strings.Split(opts, ","), "omitempty") && !slices.Contains(oasOptions(f.Tag.Get("oas")), "required")
		if optional && !hasExample {
			continue
		}
		out[name] = exampleOf(f.Type, name, &f.Tag)
		if name == "id" && !hasExample && schemaIDPrefixes[componentName(t)] != "" {
			out[name] = schemaIDPrefixes[componentName(t)] + exampleIDSuffix
		}
	}
	return out
}

// exampleString is a string field's example from its enum, format, pattern or name.
func exampleString(name string, tag *reflect.StructTag) string {
	maxLength := 0
	if tag != nil {
		for _, opt := range oasOptions(tag.Get("oas")) {
			key, val, _ := strings.Cut(opt, "=")
			switch key {
			case "enum":
				first, _, _ := strings.Cut(val, "|")
				return first
			case "pattern":
				if v, ok := patternExamples[val]; ok {
					return v
				}
				panic("openapi: no example for the pattern " + val + " of " + name + ": add an example tag or a patternExamples entry")
			case "format":
				switch val {
				case "date-time":
					return exampleTime
				case "email":
					return "ada@example.com"
				case "uri":
					return "https://partner.example.com/webhooks/corridor"
				}
			case "maxLength":
				maxLength, _ = strconv.Atoi(val)
			}
		}
	}
	v := exampleByName(name)
	if maxLength > 0 && len(v) > maxLength {
		v = v[:maxLength]
	}
	return v
}

// idPrefixOf is the prefix of an id field's stem: the stem itself (walletId), else its last
// words (holdWalletId: wallet, selectedRouteQuoteId: routeQuote); obj when nothing matches,
// which the document's example test refuses.
func idPrefixOf(stem string) string {
	for i := 0; i < len(stem); i++ {
		if i > 0 && (stem[i] < 'A' || stem[i] > 'Z') {
			continue
		}
		if p := idPrefixes[strings.ToLower(stem[i:i+1])+stem[i+1:]]; p != "" {
			return p
		}
	}
	return "obj"
}

// exampleByName guesses a realistic value from a field's name.
func exampleByName(name string) string {
	lower := strings.ToLower(name)
	switch {
	case exampleNames[name] != "":
		return exampleNames[name]
	case exampleIDs[name] != "":
		return exampleIDs[name]
	case name == "id":
		return "obj" + exampleIDSuffix // exampleObject names the prefix from the schema
	case strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID"):
		return idPrefixOf(strings.TrimSuffix(strings.TrimSuffix(name, "Id"), "ID")) + exampleIDSuffix
	case strings.Contains(lower, "email"):
		return "ada@example.com"
	case strings.Contains(lower, "address"):
		return exampleAddress
	case strings.Contains(lower, "hash"):
		return "0x" + strings.Repeat("1f", 32)
	case strings.Contains(lower, "url"):
		return "https://partner.example.com/corridor"
	case strings.Contains(lower, "amount"), strings.Contains(lower, "usd"), strings.Contains(lower, "balance"), lower == "value":
		return "25.5"
	case strings.Contains(lower, "phone"):
		return "+15555550123"
	case lower == "currency":
		return "USD"
	case lower == "asset":
		return "USDC"
	case strings.Contains(lower, "name"):
		return "Acme Payouts"
	}
	return name
}
