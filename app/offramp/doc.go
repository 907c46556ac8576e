// Package offramp is the off-ramp capability: "pay a phone number". It holds the recipient
// side (phone aliases proved by SMS, the BUSINESS_IDENTITY credential, payout destinations),
// off-ramp payments (intake, the policy composer and its holds, payout route quotes, the
// recipient's route selection and confirmation, provider submission, polling and signed
// webhooks, operator review), and pending claims for phones nobody has verified yet (the claim
// link, phone challenge, redeem, escrow jobs, indexer and expiry). These are not Safe payments
// (package app/safepay): an off-ramp payment spends the sender's service balance and is paid
// out by a payout provider.
package offramp
