// Package offramp is the off-ramp payments capability: "pay a phone number". It holds
// off-ramp payments (intake, the policy composer and its holds, payout route quotes, the
// recipient's route selection and confirmation, provider submission, polling and signed
// webhooks, operator review, route liquidity and the quote-expiry and hold recheck sweeps).
// The recipient side (phone aliases, credentials, payout destinations, the SMS outbox) is
// app/recipients, and pending claims for phones nobody has verified yet are app/claims; each
// side reaches the other through the small interface it declares. These are not Safe payments
// (package app/safepayments): an off-ramp payment spends the sender's service balance and is paid
// out by a payout provider.
package offramps
