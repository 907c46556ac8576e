package ledger

// Money between tenants moves in two transfers, each touching the rows of one tenant only, so
// that on a database distributed by tenant each lands on one shard (docs/ledger.md, "Money
// between tenants"): the sender's leg, posted with the business step on the sender's side,
// credits the sender's share of the between-tenants account (BetweenTenants); the recipient's
// leg, posted after it, debits the recipient's share and credits the recipient. Both legs carry
// the link (the recipient leg's reference) in their metadata, so `corridor check` can pair
// them.
const (
	// MetaCrossTenantLeg names a leg's side: LegSender or LegRecipient.
	MetaCrossTenantLeg = "crossTenantLeg"
	// MetaCrossTenantLink is the recipient leg's reference, on both legs.
	MetaCrossTenantLink = "crossTenantLink"
	LegSender           = "sender"
	LegRecipient        = "recipient"
)
