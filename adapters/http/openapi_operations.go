package http

import (
	"strings"
	"unicode"
)

// operationIDs name every operation the way a partner would call the method of a generated
// client (createWallet, listPayments), keyed by "METHOD path". Generators turn these names into
// method names, so they are part of the contract: renaming one breaks every partner's build. A
// route missing here gets a derived name (derivedOperationID) and a unit test asks for an
// entry.
var operationIDs = map[string]string{
	"GET /healthz":                                         "getHealth",
	"GET /readyz":                                          "getReadiness",
	"GET /v1/openapi.json":                                 "getOpenAPIDocument",
	"GET /v1/capabilities":                                 "getCapabilities",
	"POST /v1/tenants":                                     "createTenant",
	"GET /v1/tenants/current":                              "getCurrentTenant",
	"POST /v1/tenants/members":                             "inviteMember",
	"GET /v1/tenants/members":                              "listMembers",
	"POST /v1/tenants/members/accept":                      "acceptInvite",
	"POST /v1/tenants/members/{id}/revoke":                 "revokeMember",
	"PATCH /v1/tenants/members/{id}":                       "changeMemberRole",
	"GET /v1/request-logs":                                 "listRequestLogs",
	"GET /v1/request-logs/{id}":                            "getRequestLog",
	"POST /v1/api-keys":                                    "createApiKey",
	"GET /v1/api-keys":                                     "listApiKeys",
	"POST /v1/api-keys/{id}/revoke":                        "revokeApiKey",
	"GET /v1/balances":                                     "listBalances",
	"POST /v1/sandbox/balance-deposits":                    "sandboxCreateBalanceDeposit",
	"GET /v1/ledger/accounts":                              "listLedgerAccounts",
	"GET /v1/ledger/accounts/{id}/statement":               "getLedgerAccountStatement",
	"GET /v1/ledger/entries":                               "listLedgerEntries",
	"GET /v1/balance-transactions":                         "listBalanceTransactions",
	"GET /v1/admin/tenants":                                "adminFindTenants",
	"GET /v1/admin/stuck-work":                             "adminListStuckWork",
	"GET /v1/admin/failed-jobs":                            "adminListFailedJobs",
	"GET /v1/admin/disabled-webhook-endpoints":             "adminListDisabledWebhookEndpoints",
	"GET /v1/ledger/trial-balance":                         "getTrialBalance",
	"GET /v1/ledger/reconciliation":                        "getReconciliation",
	"POST /v1/wallets":                                     "createWallet",
	"GET /v1/wallets":                                      "listWallets",
	"GET /v1/wallets/{id}":                                 "getWallet",
	"POST /v1/wallets/{id}/fund":                           "fundWallet",
	"GET /v1/faucet/drips":                                 "listFaucetDrips",
	"GET /v1/faucet/drips/{dripId}":                        "getFaucetDrip",
	"PUT /v1/directory/handle":                             "putDirectoryHandle",
	"GET /v1/wallets/{id}/balance":                         "getWalletBalance",
	"GET /v1/wallets/{id}/transactions":                    "listWalletTransactions",
	"POST /v1/wallets/{id}/send":                           "sendFromWallet",
	"GET /v1/transactions":                                 "listTransactions",
	"POST /v1/payments/{id}/refund":                        "refundCheckout",
	"GET /v1/payments/{id}/refunds":                        "listCheckoutRefunds",
	"GET /v1/checkouts":                                    "listCheckouts",
	"POST /v1/sandbox/payments/{id}/expire":                "sandboxExpireCheckout",
	"POST /v1/sandbox/payments/{id}/pay":                   "sandboxPayCheckout",
	"GET /pay/{id}":                                        "getCheckoutPage",
	"GET /pay/{id}/status":                                 "getCheckoutPageStatus",
	"GET /pay/{id}/qr.png":                                 "getCheckoutPageQRCode",
	"GET /checkout-assets/checkout.js":                     "getCheckoutPageScript",
	"GET /checkout-assets/checkout.css":                    "getCheckoutPageStylesheet",
	"POST /v1/payments":                                    "createPayment",
	"POST /v1/wallets/{id}/transactions":                   "createSafeTransaction",
	"GET /v1/payments":                                     "listPayments",
	"GET /v1/payments/{id}":                                "getPayment",
	"POST /v1/payments/{id}/sign":                          "signPayment",
	"POST /v1/payments/{id}/execute":                       "executePayment",
	"POST /v1/payments/{id}/cancel":                        "cancelPayment",
	"POST /v1/policies":                                    "createPolicy",
	"GET /v1/policies":                                     "listPolicies",
	"POST /v1/policies/evaluate":                           "evaluatePolicy",
	"DELETE /v1/policies/attachments/{attachmentId}":       "deletePolicyAttachment",
	"GET /v1/policies/{id}":                                "getPolicy",
	"DELETE /v1/policies/{id}":                             "deletePolicy",
	"POST /v1/policies/{id}/versions":                      "createPolicyVersion",
	"GET /v1/policies/{id}/versions":                       "listPolicyVersions",
	"POST /v1/policies/{id}/attachments":                   "createPolicyAttachment",
	"GET /v1/policies/{id}/attachments":                    "listPolicyAttachments",
	"POST /v1/agents":                                      "createAgent",
	"GET /v1/agents":                                       "listAgents",
	"GET /v1/agents/{id}":                                  "getAgent",
	"POST /v1/agents/{id}/suspend":                         "suspendAgent",
	"POST /v1/agents/{id}/reactivate":                      "reactivateAgent",
	"POST /v1/agents/{id}/keys":                            "createAgentKey",
	"GET /v1/agents/{id}/limits":                           "getAgentLimits",
	"PUT /v1/agents/{id}/limits":                           "updateAgentLimits",
	"POST /v1/agents/{id}/wallet":                          "createAgentWallet",
	"GET /v1/agents/{id}/activity":                         "listAgentActivity",
	"POST /v1/agents/{id}/cards":                           "createAgentCard",
	"GET /v1/identity":                                     "getIdentity",
	"GET /v1/status":                                       "getStatus",
	"POST /v1/phone-aliases":                               "createPhoneAlias",
	"POST /v1/phone-aliases/{id}/verify":                   "verifyPhoneAlias",
	"POST /v1/phone-aliases/{id}/reverify":                 "reverifyPhoneAlias",
	"GET /v1/phone-aliases":                                "listPhoneAliases",
	"GET /v1/sandbox/sms-messages":                         "sandboxListSmsMessages",
	"GET /v1/credentials":                                  "listCredentials",
	"POST /v1/sandbox/credentials":                         "sandboxSetCredential",
	"POST /v1/payout-destinations":                         "createPayoutDestination",
	"GET /v1/payout-destinations":                          "listPayoutDestinations",
	"GET /v1/payout-destinations/{id}":                     "getPayoutDestination",
	"POST /v1/treasury/accounts":                           "createTreasuryAccount",
	"GET /v1/treasury/accounts":                            "listTreasuryAccounts",
	"GET /v1/treasury/accounts/{id}":                       "getTreasuryAccount",
	"POST /v1/treasury/accounts/{id}/rules":                "createTreasuryAccountRule",
	"GET /v1/treasury/accounts/{id}/rules":                 "listTreasuryAccountRules",
	"PATCH /v1/treasury/rules/{ruleId}":                    "updateTreasuryRule",
	"DELETE /v1/treasury/rules/{ruleId}":                   "deleteTreasuryRule",
	"POST /v1/treasury/accounts/{id}/sweeps":               "createTreasuryAccountSweep",
	"GET /v1/treasury/accounts/{id}/sweeps":                "listTreasuryAccountSweeps",
	"POST /v1/sandbox/treasury/accounts/{id}/advance":      "sandboxAdvanceTreasuryAccount",
	"POST /v1/wallets/{walletId}/cards":                    "createWalletCard",
	"POST /v1/cardholders":                                 "createCardholder",
	"GET /v1/cardholders":                                  "listCardholders",
	"POST /v1/cards":                                       "createCard",
	"GET /v1/cards":                                        "listCards",
	"GET /v1/cards/{id}":                                   "getCard",
	"GET /v1/cards/{id}/limits":                            "getCardLimits",
	"PUT /v1/cards/{id}/limits":                            "updateCardLimits",
	"POST /v1/cards/{id}/freeze":                           "freezeCard",
	"POST /v1/cards/{id}/unfreeze":                         "unfreezeCard",
	"POST /v1/cards/{id}/ephemeral-keys":                   "createCardEphemeralKey",
	"GET /v1/cards/{id}/authorizations":                    "listCardAuthorizations",
	"POST /v1/sandbox/cards/{id}/authorizations":           "sandboxCreateCardAuthorization",
	"POST /v1/sandbox/card-authorizations/{id}/capture":    "sandboxCaptureCardAuthorization",
	"POST /v1/sandbox/card-authorizations/{id}/reverse":    "sandboxReverseCardAuthorization",
	"POST /v1/ramps":                                       "createRamp",
	"GET /v1/ramps":                                        "listRamps",
	"GET /v1/ramps/{id}":                                   "getRamp",
	"POST /v1/contacts":                                    "createContact",
	"GET /v1/contacts":                                     "listContacts",
	"DELETE /v1/contacts/{id}":                             "deleteContact",
	"POST /v1/twofactor/factors":                           "enrollTwoFactorFactor",
	"DELETE /v1/twofactor/factors/{id}":                    "deleteTwoFactorFactor",
	"POST /v1/twofactor/factors/{id}/verify":               "verifyTwoFactorFactor",
	"GET /v1/twofactor/factors":                            "listTwoFactorFactors",
	"GET /v1/twofactor/settings":                           "getTwoFactorSettings",
	"PUT /v1/twofactor/settings":                           "updateTwoFactorSettings",
	"POST /v1/twofactor/challenges/{id}/verify":            "verifyTwoFactorChallenge",
	"GET /v1/events":                                       "listEvents",
	"GET /v1/events/{id}":                                  "getEvent",
	"GET /v1/events/{id}/payload":                          "getEventPayload",
	"POST /v1/sandbox/events":                              "sandboxTriggerEvent",
	"POST /v1/webhook-endpoints":                           "createWebhookEndpoint",
	"GET /v1/webhook-endpoints":                            "listWebhookEndpoints",
	"GET /v1/webhook-endpoints/{id}":                       "getWebhookEndpoint",
	"PATCH /v1/webhook-endpoints/{id}":                     "updateWebhookEndpoint",
	"DELETE /v1/webhook-endpoints/{id}":                    "deleteWebhookEndpoint",
	"GET /v1/webhook-endpoints/{id}/deliveries":            "listWebhookEndpointDeliveries",
	"POST /v1/webhook-deliveries/{id}/redeliver":           "redeliverWebhookDelivery",
	"POST /v1/invoices":                                    "createInvoice",
	"GET /v1/invoices":                                     "listInvoices",
	"GET /v1/invoices/{id}":                                "getInvoice",
	"POST /v1/invoices/{id}/send":                          "sendInvoice",
	"POST /v1/invoices/{id}/deliver":                       "deliverInvoice",
	"POST /v1/invoices/{id}/release":                       "releaseInvoice",
	"POST /v1/invoices/{id}/refund":                        "refundInvoice",
	"POST /v1/invoices/{id}/cancel":                        "cancelInvoice",
	"GET /v1/invoices/public/{id}":                         "getPublicInvoice",
	"POST /v1/sandbox/invoices/{id}/advance":               "sandboxAdvanceInvoice",
	"POST /v1/bills":                                       "createBill",
	"GET /v1/bills/inbound":                                "listInboundBills",
	"GET /v1/bills/inbound/{invoiceId}":                    "getInboundBill",
	"POST /v1/bills/inbound/{invoiceId}/accept":            "acceptInboundBill",
	"POST /v1/admin/invoices/{id}/arbiter-sign":            "adminArbiterSignInvoice",
	"POST /v1/offramp/payments":                            "createOfframpPayment",
	"GET /v1/offramp/payments":                             "listOfframpPayments",
	"GET /v1/offramp/payments/{id}":                        "getOfframpPayment",
	"GET /v1/offramp/payments/{id}/routes":                 "listOfframpPaymentRoutes",
	"POST /v1/offramp/payments/{id}/select-route":          "selectOfframpPaymentRoute",
	"POST /v1/offramp/payments/{id}/confirm":               "confirmOfframpPayment",
	"POST /v1/offramp/payments/{id}/cancel":                "cancelOfframpPayment",
	"POST /v1/providers/{provider}/webhooks":               "receiveProviderWebhook",
	"POST /v1/sandbox/offramp/payments/{id}/expire-quotes": "sandboxExpireOfframpQuotes",
	"POST /v1/sandbox/offramp/payments/{id}/provider-step": "sandboxAdvanceOfframpProvider",
	"GET /v1/claims/{claimToken}":                          "getClaim",
	"POST /v1/claims/{claimToken}/phone-code":              "sendClaimPhoneCode",
	"POST /v1/claims/{claimToken}/phone-code/verify":       "verifyClaimPhoneCode",
	"POST /v1/claims/{claimToken}/redeem":                  "redeemClaim",
	"GET /v1/offramp/claims/{claimId}":                     "getOfframpClaim",
	"POST /v1/offramp/claims/{claimId}/resend":             "resendOfframpClaim",
	"POST /v1/offramp/claims/{claimId}/refund-request":     "requestOfframpClaimRefund",
	"POST /v1/sandbox/offramp/claims/{claimId}/expire":     "sandboxExpireOfframpClaim",
	"POST /v1/admin/offramp/payments/{id}/approve-review":  "adminApproveOfframpReview",
	"POST /v1/admin/payout-providers/{provider}/liquidity": "adminSetProviderLiquidity",
}

// operationID is the route's name from operationIDs, or one derived from its method and path.
func operationID(r Endpoint) string {
	if id, ok := operationIDs[r.Method+" "+r.Path]; ok {
		return id
	}
	return derivedOperationID(r)
}

// derivedOperationID names a route missing from operationIDs: the method in lower case and
// every literal path segment after /v1/ in camel case (POST /v1/foo-bars/{id}/close is
// postFooBarsClose). It stays unique because method and literal segments identify a route.
func derivedOperationID(r Endpoint) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method))
	for _, seg := range strings.Split(strings.TrimPrefix(r.Path, "/v1"), "/") {
		if strings.HasPrefix(seg, "{") {
			seg = "by-" + strings.Trim(seg, "{}")
		}
		for _, word := range strings.FieldsFunc(seg, func(c rune) bool { return c == '-' || c == '_' || c == '.' }) {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// maxSummaryLength bounds an operation's summary, the one line generators put above a method;
// the rest of the table's text goes to the description.
const maxSummaryLength = 80

// summarize splits the table's text of a route into a summary (its first clause, when that
// fits a line) and a description (the whole text, with what a caller needs to call it).
func summarize(r Endpoint) (summary, description string) {
	text := strings.TrimSpace(r.Summary)
	summary = text
	if cut := strings.IndexAny(text, ":;("); cut > 0 && len(text) > maxSummaryLength {
		summary = strings.TrimSpace(text[:cut])
	}
	if len(summary) > maxSummaryLength {
		summary = strings.TrimSpace(summary[:maxSummaryLength-1]) + "…"
	}
	description = sentence(text)
	if len(r.Scopes) > 0 {
		scopes := make([]string, len(r.Scopes))
		for i, sc := range r.Scopes {
			scopes[i] = "`" + string(sc) + "`"
		}
		description += "\n\nRequires the scopes " + strings.Join(scopes, ", ") + "."
	}
	if r.SandboxOnly {
		description += "\n\nTEST only: a LIVE credential is answered 403 SANDBOX_ONLY."
	}
	if r.Public != "" {
		description += "\n\nNo scope: " + sentence(r.Public)
	}
	return summary, description
}

// sentence capitalises a text and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	runes := []rune(s)
	runes[0] = unicode.ToUpper(runes[0])
	s = string(runes)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ")") {
		s += "."
	}
	return s
}
