package policy

// CardLimits are a card's own limits (docs/api.md CardLimits) in the engine's terms: caps in base
// units (nil = unlimited), MCC lists already normalised to four digits (Allowed nil = no
// allowlist).
type CardLimits struct {
	Limits Limits
	MCC    Lists
}

// EvaluateCumulative is the entry point for card authorizations: interval caps are cumulative
// (spent in the window plus the amount, against the cap), and where both the policy and the
// card set a rule the most restrictive wins: the lower cap, either denylist, and every
// allowlist. policy is nil when no policy is attached to the card; the card's limits still
// apply. Pure: same inputs, same verdict and trace.
func EvaluateCumulative(policy *IR, card CardLimits, tx Transaction, spent Spend) Verdict {
	return evaluate(rulesOf(policy, card), tx, spent)
}

// rulesOf merges the policy's rules (if any) with the card's limits.
func rulesOf(policy *IR, card CardLimits) rules {
	var r rules
	cardCaps := capsOf(card.Limits)
	r.caps = cardCaps
	cardMCC := Lists{Blocked: compileList(card.MCC.Blocked, normaliseMCC), Allowed: card.MCC.Allowed}
	if card.MCC.Allowed != nil {
		cardMCC.Allowed = compileList(card.MCC.Allowed, normaliseMCC)
		if cardMCC.Allowed == nil {
			// A card allowlist explicitly set empty allows nothing, unlike a document's empty
			// allowlist, which compiles away; keep it as a list that matches no MCC.
			cardMCC.Allowed = []string{}
		}
	}
	addMCC(&r, cardMCC)
	if policy != nil {
		for i, c := range capsOf(policy.Limits) {
			r.caps[i] = minCap(r.caps[i], c)
		}
		addMCC(&r, policy.MCC)
		r.cpBlocked = policy.Counterparties.Blocked
		r.cpAllowed = policy.Counterparties.Allowed
		r.cpAllowedSet = policy.Counterparties.Allowed != nil
	}
	return r
}

func capsOf(l Limits) [4]*int64 { return [4]*int64{l.PerTransaction, l.Daily, l.Weekly, l.Monthly} }

func addMCC(r *rules, l Lists) {
	if len(l.Blocked) > 0 {
		r.mccBlocked = append(r.mccBlocked, l.Blocked)
	}
	if l.Allowed != nil {
		r.mccAllowed = append(r.mccAllowed, l.Allowed)
	}
}

// minCap is the more restrictive of two caps; nil is unlimited.
func minCap(a, b *int64) *int64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case *b < *a:
		return b
	}
	return a
}
