package citus

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// cardsUnit runs what an authorization's units of work ask of the cards family: a cardholder
// and a card created, the card locked with its windows and attachment check, an approval
// recorded with its windows and event, the authorization locked by id (the settlement job),
// listed and updated, the windows credited back and read.
func cardsUnit(ctx context.Context, tx ports.Tx, tenantID string, now time.Time) error {
	r := tx.Cards()
	h := card.Cardholder{ID: core.NewID(core.PrefixCardholder), TenantID: tenantID, Environment: core.EnvTest,
		Name: "Route", Email: "route@example.com", CreatedAt: now}
	if err := r.CreateCardholder(ctx, h); err != nil {
		return err
	}
	c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: tenantID, Environment: core.EnvTest, Funding: card.FundingAccount,
		CardholderID: h.ID, Issuer: "sandbox", IssuerCardID: "ic_" + h.ID, Last4: "4242", Status: card.StatusActive,
		Limits: card.Limits{BlockedMCC: []string{}}, CreatedAt: now, UpdatedAt: now}
	if err := r.CreateCard(ctx, c); err != nil {
		return err
	}
	w := card.WindowsAt(now)
	if _, err := r.LockCardForDecision(ctx, tenantID, core.EnvTest, c.ID, w); err != nil {
		return err
	}
	a := card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: tenantID, Environment: core.EnvTest, CardID: c.ID,
		Amount: 100, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: w, CreatedAt: now, UpdatedAt: now}
	announce := event.New(tenantID, core.EnvTest, "card.authorization.approved", a.ID, map[string]any{"amount": "1"}, now)
	if err := r.CreateSpendingAuthorization(ctx, a, announce); err != nil {
		return err
	}
	locked, err := r.LockAuthorizationByID(ctx, tenantID, a.ID)
	if err != nil {
		return err
	}
	// The walk holds no money (no ledger hold behind the approval): it ends declined, so the
	// cluster's later corridor check (the package's tests share it) finds no approval without
	// its hold.
	locked.Status, locked.DeclineReason = card.AuthDeclined, card.ReasonDailyCap
	if err := r.UpdateAuthorization(ctx, locked); err != nil {
		return err
	}
	if _, _, err := r.ListAuthorizations(ctx, tenantID, c.ID, ports.Page{Take: 10}); err != nil {
		return err
	}
	if err := r.AddWindowSpend(ctx, tenantID, c.ID, w, -100); err != nil {
		return err
	}
	_, err = r.WindowSpend(ctx, tenantID, c.ID, w)
	return err
}

// policiesUnit runs what the policy use cases and gates ask of the policies family: a policy
// with its first version, a second version activated, the subject's attachment found, a
// decision logged and listed, the attachments listed and detached.
func policiesUnit(ctx context.Context, tx ports.Tx, tenantID string, now time.Time) error {
	r := tx.Policies()
	raw := []byte(`{"schemaVersion":1,"limits":{"dailyUsd":"50"}}`)
	doc, err := policy.ParseDocument("document", raw)
	if err != nil {
		return err
	}
	p := policy.Policy{ID: core.NewID(core.PrefixPolicy), TenantID: tenantID, Environment: core.EnvTest, Name: "route",
		Status: policy.StatusActive, CreatedAt: now}
	v1 := policy.NewVersion(core.NewID(core.PrefixVersion), p.ID, 1, doc, raw, now)
	p.ActiveVersionID, p.ActiveVersion = v1.ID, 1
	if err := r.CreatePolicy(ctx, p, v1); err != nil {
		return err
	}
	locked, err := r.LockPolicy(ctx, tenantID, core.EnvTest, p.ID)
	if err != nil {
		return err
	}
	v2 := policy.NewVersion(core.NewID(core.PrefixVersion), p.ID, 2, doc, raw, now)
	if err := r.CreateVersion(ctx, tenantID, v2); err != nil {
		return err
	}
	if locked, err = locked.Activate(v2); err != nil {
		return err
	}
	if err := r.UpdatePolicy(ctx, locked); err != nil {
		return err
	}
	if _, err := r.FindVersion(ctx, tenantID, p.ID, v2.ID); err != nil {
		return err
	}
	if _, _, err := r.ListVersions(ctx, tenantID, p.ID, ports.Page{Take: 10}); err != nil {
		return err
	}
	att := policy.Attachment{ID: core.NewID(core.PrefixAttachmnt), TenantID: tenantID, Environment: core.EnvTest,
		PolicyID: p.ID, SubjectType: policy.SubjectWallet, SubjectID: "wal_route", AttachedAt: now}
	if err := r.CreateAttachment(ctx, att); err != nil {
		return err
	}
	if _, _, err := r.FindSubjectAttachment(ctx, tenantID, core.EnvTest, policy.SubjectWallet, "wal_route"); err != nil {
		return err
	}
	d := policy.Decision{ID: core.NewID(core.PrefixDecision), TenantID: tenantID, Environment: core.EnvTest, PolicyID: p.ID,
		VersionID: v2.ID, PolicyVersion: 2, SHA256: v2.SHA256, Source: policy.SourceEvaluate,
		Verdict: policy.Verdict{Allow: true, Reason: "ok"}, CreatedAt: now}
	if err := r.CreateDecision(ctx, d); err != nil {
		return err
	}
	if _, _, err := r.ListDecisions(ctx, ports.DecisionFilter{TenantID: tenantID, Environment: core.EnvTest, PolicyID: p.ID},
		ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, err := r.ListAttachments(ctx, tenantID, p.ID, 10); err != nil {
		return err
	}
	if err := r.Detach(ctx, tenantID, att.ID, now); err != nil {
		return err
	}
	_, err = r.DetachAll(ctx, tenantID, p.ID, now)
	return err
}
