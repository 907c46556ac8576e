package fake

import "github.com/corridorhq/corridor/ports"

// Tx is the fake unit of work's repositories. Each reads the store's current state when
// called, so a rolled-back savepoint is invisible to the rest of the unit.
type Tx struct{ s *Store }

var _ ports.Tx = (*Tx)(nil)

// Ledger posts to the store's ledger.Book.
func (t *Tx) Ledger() ports.LedgerRepo { return ledgerRepo{t.s} }

// Cards stores cards, cardholders, authorizations and window spend in maps.
func (t *Tx) Cards() ports.CardRepo { return cardRepo{t.s} }

// Events stores events, webhook endpoints and deliveries in maps.
func (t *Tx) Events() ports.EventRepo { return eventRepo{t.s} }

// Tenants stores tenants in a table; slugs are unique.
func (t *Tx) Tenants() ports.TenantRepo { return tenantRepo{t.s} }

// Members stores members in a table.
func (t *Tx) Members() ports.MemberRepo { return memberRepo{t.s} }

// APIKeys stores API keys in a table.
func (t *Tx) APIKeys() ports.APIKeyRepo { return apiKeyRepo{t.s} }

// Idempotency stores idempotency records in a map.
func (t *Tx) Idempotency() ports.IdempotencyRepo { return idempotencyRepo{t.s} }

// LedgerReports answers the finance reads by replaying the book's transfers.
func (t *Tx) LedgerReports() ports.LedgerReports { return ledgerReports{t.s} }

// Wallets stores wallets in a map.
func (t *Tx) Wallets() ports.WalletRepo { return walletRepo{t.s} }

// RelayerBudget counts relayer charges per tenant, environment and day.
func (t *Tx) RelayerBudget() ports.RelayerBudgetRepo { return relayerBudgetRepo{t.s} }

// Payments stores Safe payments in a map.
func (t *Tx) Payments() ports.PaymentRepo { return paymentRepo{t.s} }

// PaymentHolds stores Safe payments' holds in a map.
func (t *Tx) PaymentHolds() ports.PaymentHoldRepo { return paymentHoldRepo{t.s} }

// Handles stores directory handles per environment.
func (t *Tx) Handles() ports.HandleRepo { return handleRepo{t.s} }

// Drips stores faucet drips in a map.
func (t *Tx) Drips() ports.DripRepo { return dripRepo{t.s} }

// ChainIndex stores the mirror's cursors, recorded blocks and background failures in maps.
func (t *Tx) ChainIndex() ports.ChainIndexRepo { return chainIndexRepo{t.s} }

// Policies stores policies, versions, attachments and decisions in tables.
func (t *Tx) Policies() ports.PolicyRepo { return policyRepo{t.s} }

// Recipients stores phone aliases, credentials and payout destinations in maps.
func (t *Tx) Recipients() ports.RecipientRepo { return recipientRepo{t.s} }

// Offramp stores off-ramp payments and their quote sets in maps.
func (t *Tx) Offramp() ports.OfframpRepo { return offrampRepo{t.s} }

// Claims stores claims, links, phone challenges, applied escrow events and the indexer's
// cursors in maps.
func (t *Tx) Claims() ports.ClaimRepo { return claimRepo{t.s} }

// Agents stores agents and their card spend, and reads their spend and timeline from the
// other tables.
func (t *Tx) Agents() ports.AgentRepo { return agentRepo{t.s} }

// Treasury stores treasury accounts, rules and sweeps in maps.
func (t *Tx) Treasury() ports.TreasuryRepo { return treasuryRepo{t.s} }

// Ramps stores sandbox ramps in a table.
func (t *Tx) Ramps() ports.RampRepo { return rampRepo{t.s} }

// TwoFactor stores contacts, factors, approval settings and challenges in maps.
func (t *Tx) TwoFactor() ports.TwoFactorRepo { return twoFactorRepo{t.s} }

// Invoices stores invoices and bills in maps.
func (t *Tx) Invoices() ports.InvoiceRepo { return invoiceRepo{t.s} }

// Checkouts stores hosted checkouts and their refunds in maps.
func (t *Tx) Checkouts() ports.CheckoutRepo { return checkoutRepo{t.s} }

// WalletActivity merges Safe transfers, mirror lines, checkouts and refunds.
func (t *Tx) WalletActivity() ports.WalletActivityRepo { return walletActivityRepo{t.s} }
