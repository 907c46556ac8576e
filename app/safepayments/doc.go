// Package safepay is the Safe payments capability: USDC debits from a tenant's Safe wallet,
// proposed with the safeTxHash its owners sign, signed off chain by the owners, executed
// through the relayer (automatically at the threshold signature, or explicitly) and
// cancelled while unsent. These are not off-ramp payments (phone-addressed payouts, package
// app/offramps): a Safe payment moves USDC on chain from a wallet the tenant controls.
package safepayments
