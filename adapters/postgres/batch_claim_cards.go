package postgres

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// A known card's lock read in the batch's claim. A card authorization's unit sent one statement
// of its own after the batch's claim: the card's lock read (LockCardForDecision: the card's row
// locked, its three windows' spend and whether a policy is attached, read after the lock). When
// its request named the card (ports.LedgerIntent.Card), the batch's claim locks and reads it
// too, after the balance rows (batchClaimSQL), and the decision finds it read.
//
// What keeps it right:
//   - The order of the card paths: the card is locked only for a unit whose claim went and whose
//     balance rows the claim locked, all of them (or the batch held them already), so the batch
//     never holds a card without its hold's rows.
//   - The claim never waits for a card: card_lock_for_decision with p_skip skips a card another
//     transaction holds, and its unit locks it itself, as before (under lock_timeout, carried to
//     the next batch when the card stays held).
//   - Exact caps: the windows and the attachment check are read after the lock, in fresh
//     snapshots (the function's statements), as the unit's own lock read reads them.
//   - One card, one reader: a card named by two units of a batch is read for the first only;
//     the later decides after the first's approval and reads the card itself.
//   - Nothing changes the card between the claim and the decision: the batch holds its lock
//     against other transactions, and within the batch every statement of another unit that may
//     change what the decision read (the card's row or windows, a policy attachment) marks it
//     touched (touchCard), after which the decision reads the card itself.
//   - A unit that fails leaves the card locked by the batch, as its balance rows are; a unit
//     carried to the next batch claims alone there and reads its card itself.

// cardDecisionColumns are card_lock_for_decision's row as plain columns (cardScan's order).
const cardDecisionColumns = `(r.card).id, (r.card).tenant_id, (r.card).environment, (r.card).funding,
    (r.card).wallet_id, (r.card).safe_address, (r.card).cardholder_id, (r.card).agent_id, (r.card).issuer,
    (r.card).issuer_card_id, (r.card).last4, (r.card).funding_account_id, (r.card).chain,
    (r.card).crypto_account_address, (r.card).crypto_account_type, (r.card).status,
    (r.card).per_transaction_limit, (r.card).daily_limit, (r.card).weekly_limit, (r.card).monthly_limit,
    (r.card).blocked_mcc::text, (r.card).allowed_mcc::text, (r.card).created_at, (r.card).updated_at,
    r.spent_daily, r.spent_weekly, r.spent_monthly, r.policy_attached`

// noCardColumns fill cardDecisionColumns in the batch claim's other rows, typed, with values
// cardScan's targets accept.
const noCardColumns = `''::text, ''::text, ''::text, ''::text, NULL::text, NULL::text, NULL::text, NULL::text,
    ''::text, ''::text, ''::text, NULL::text, NULL::text, NULL::text, NULL::text, ''::text,
    NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::text, NULL::text, 'epoch'::timestamptz,
    'epoch'::timestamptz, 0::int8, 0::int8, 0::int8, false`

// cardScan receives cardDecisionColumns.
type cardScan struct {
	m                cardModel
	blocked, allowed []byte
	d                ports.CardDecisionRows
}

func (c *cardScan) targets() []any {
	m := &c.m
	return []any{&m.ID, &m.TenantID, &m.Environment, &m.Funding, &m.WalletID, &m.SafeAddress, &m.CardholderID,
		&m.AgentID, &m.Issuer, &m.IssuerCardID, &m.Last4, &m.FundingAccountID, &m.Chain, &m.CryptoAccountAddress,
		&m.CryptoAccountType, &m.Status, &m.PerTransactionLimit, &m.DailyLimit, &m.WeeklyLimit, &m.MonthlyLimit,
		&c.blocked, &c.allowed, &m.CreatedAt, &m.UpdatedAt, &c.d.Spent.Daily, &c.d.Spent.Weekly, &c.d.Spent.Monthly,
		&c.d.PolicyAttached}
}

// rows is what was scanned, as the port's value.
func (c *cardScan) rows() (ports.CardDecisionRows, error) {
	c.m.BlockedMCC, c.m.AllowedMCC = c.blocked, c.allowed
	d := c.d
	var err error
	d.Card, err = c.m.domain()
	return d, err
}

// cardRead is a card the batch's claim locked and read for a unit.
type cardRead struct {
	env  core.Environment
	want ports.CardIntent
	rows ports.CardDecisionRows
}

// claimCard adds the card a unit's request named, unless an earlier unit of the batch named it.
func claimCard(a *claimArgs, c *claimNeed, ord int64, seen map[string]bool) {
	ci := c.intent.Card
	if ci.CardID == "" || ci.TenantID == "" {
		return
	}
	k := cardTouchKey(ci.TenantID, ci.CardID)
	if seen[k] {
		return
	}
	seen[k] = true
	a.cardTenants, a.cardEnvs, a.cardIDs = append(a.cardTenants, ci.TenantID), append(a.cardEnvs, c.env), append(a.cardIDs, ci.CardID)
	a.days, a.weeks, a.months = append(a.days, ci.Windows.Day), append(a.weeks, ci.Windows.Week), append(a.months, ci.Windows.Month)
	a.cardOf = append(a.cardOf, ord)
}

func cardTouchKey(tenantID, cardID string) string { return tenantID + "\x00" + cardID }

// attachmentsTouched is touchCard's key for a policy attachment's change: every card's
// attachment check may have changed.
const attachmentsTouched = "\x00attachments"

// touchCard notes that u sent a statement that may change what a card's decision reads (its
// row, its windows; key attachmentsTouched: any card's attachment check) after the batch's
// claim read cards: a decision of another unit of the batch then reads its card itself.
func (u *unitLedger) touchCard(key string) {
	if u == nil || !u.m.b.claimRan {
		return
	}
	b := u.m.b
	if b.cardsTouched == nil {
		b.cardsTouched = map[string]bool{}
	}
	b.cardsTouched[key] = true
}

// takeCard is the card the batch's claim read for u's decision on tenantID's card id in the
// windows w, once: false when it read none, the decision is another's, or a unit of the batch
// touched the card (or any attachment) since.
func (u *unitLedger) takeCard(tenantID string, env core.Environment, id string, w card.Windows) (ports.CardDecisionRows, bool) {
	if u == nil || u.m.claim == nil || u.m.claim.card == nil {
		return ports.CardDecisionRows{}, false
	}
	r := u.m.claim.card
	u.m.claim.card = nil
	if r.env != env || r.want != (ports.CardIntent{TenantID: tenantID, CardID: id, Windows: w}) {
		return ports.CardDecisionRows{}, false
	}
	if t := u.m.b.cardsTouched; t[cardTouchKey(tenantID, id)] || t[attachmentsTouched] {
		return ports.CardDecisionRows{}, false
	}
	return r.rows, true
}
