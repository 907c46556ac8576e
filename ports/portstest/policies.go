package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// PolicyRepo is the contract of ports.PolicyRepo: policies list by id and are scoped
// (POLICY_NOT_FOUND elsewhere), versions list by number and a taken number is INVALID_STATE,
// a subject has one active attachment (POLICY_SUBJECT_ATTACHED for a second, free again once
// detached), and decisions list newest first by policy or reference.
func PolicyRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"policies list by id, scoped; an update moves the active version", policyCRUD},
		{"versions list by number; a taken number is INVALID_STATE", policyVersions},
		{"one active attachment per subject, free again once detached", policyAttachments},
		{"decisions list newest first by policy or reference, scoped", policyDecisions},
	})
}

// newPolicy returns a policy of the tenant with its first version (a daily cap of amount USD).
func newPolicy(t *testing.T, tenantID string, amount string) (policy.Policy, policy.Version) {
	t.Helper()
	p := policy.Policy{ID: core.NewID(core.PrefixPolicy), TenantID: tenantID, Environment: core.EnvTest, Name: "cap",
		Status: policy.StatusActive, CreatedAt: ledgerNow()}
	v := newVersion(t, p.ID, 1, amount)
	p.ActiveVersionID, p.ActiveVersion = v.ID, 1
	return p, v
}

func newVersion(t *testing.T, policyID string, n int, amount string) policy.Version {
	t.Helper()
	raw := []byte(`{"schemaVersion":1,"limits":{"dailyUsd":"` + amount + `"}}`)
	doc, err := policy.ParseDocument("document", raw)
	noErr(t, "ParseDocument", err)
	return policy.NewVersion(core.NewID(core.PrefixVersion), policyID, n, doc, raw, ledgerNow())
}

func createPolicy(t *testing.T, s ports.Store, p policy.Policy, v policy.Version) {
	t.Helper()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Policies().CreatePolicy(ctx, p, v) })
}

func policyCRUD(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a, va := newPolicy(t, tn.ID, "50")
	b, vb := newPolicy(t, tn.ID, "60")
	createPolicy(t, s, a, va)
	createPolicy(t, s, b, vb)
	v2 := newVersion(t, a.ID, 2, "70")
	archived := ledgerNow()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateVersion", tx.Policies().CreateVersion(ctx, tn.ID, v2))
		a.ActiveVersionID, a.ActiveVersion, a.Status, a.ArchivedAt = v2.ID, 2, policy.StatusArchived, &archived
		return tx.Policies().UpdatePolicy(ctx, a)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Policies().LockPolicy(ctx, tn.ID, core.EnvTest, a.ID)
		if got.ActiveVersionID != v2.ID || got.ActiveVersion != 2 || got.Status != policy.StatusArchived || got.ArchivedAt == nil {
			t.Errorf("after UpdatePolicy = %+v", got)
		}
		list, total, err2 := tx.Policies().ListPolicies(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListPolicies", total, 2)
		wantIDs(t, "ListPolicies", ids(list, func(p policy.Policy) string { return p.ID }), []string{a.ID, b.ID})
		_, err3 := tx.Policies().FindPolicy(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err3, policy.CodePolicyNotFound)
		_, err3 = tx.Policies().FindPolicy(ctx, tn.ID, core.EnvLive, a.ID)
		wantCode(t, err3, policy.CodePolicyNotFound)
		return firstErr(err, err2)
	})
}

func policyVersions(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	p, v1 := newPolicy(t, tn.ID, "50")
	createPolicy(t, s, p, v1)
	v2 := newVersion(t, p.ID, 2, "80")
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Policies().CreateVersion(ctx, tn.ID, v2) })
	err := unitErr(s, func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreateVersion(ctx, tn.ID, newVersion(t, p.ID, 2, "90"))
	})
	wantCode(t, err, core.CodeInvalidState)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Policies().ListVersions(ctx, tn.ID, p.ID, ports.Page{Take: 10})
		wantTotal(t, "ListVersions", total, 2)
		wantIDs(t, "ListVersions", ids(list, func(v policy.Version) string { return v.ID }), []string{v1.ID, v2.ID})
		if _, n, _ := tx.Policies().ListVersions(ctx, other.ID, p.ID, ports.Page{Take: 10}); n != 0 {
			t.Errorf("ListVersions under another tenant = %d, want none", n)
		}
		if _, err := tx.Policies().FindVersion(ctx, other.ID, p.ID, v2.ID); err == nil {
			t.Error("FindVersion under another tenant succeeded")
		}
		got, err2 := tx.Policies().FindVersion(ctx, tn.ID, p.ID, v2.ID)
		if got.SHA256 != v2.SHA256 || string(got.IR.Canonical()) != string(v2.IR.Canonical()) || got.Version != 2 {
			t.Errorf("FindVersion = %+v, want %+v", got, v2)
		}
		if _, err := tx.Policies().FindVersion(ctx, tn.ID, p.ID, core.NewID(core.PrefixVersion)); err == nil {
			t.Error("FindVersion of an unknown version succeeded")
		}
		return firstErr(err, err2)
	})
}

func newAttachment(p policy.Policy, subject string) policy.Attachment {
	return policy.Attachment{ID: core.NewID(core.PrefixAttachmnt), TenantID: p.TenantID, Environment: p.Environment, PolicyID: p.ID,
		SubjectType: policy.SubjectWallet, SubjectID: subject, AttachedAt: ledgerNow()}
}

func policyAttachments(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	p, v := newPolicy(t, tn.ID, "50")
	createPolicy(t, s, p, v)
	subject, second := core.NewID(core.PrefixWallet), core.NewID(core.PrefixWallet)
	first := newAttachment(p, subject)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateAttachment", tx.Policies().CreateAttachment(ctx, first))
		return tx.Policies().CreateAttachment(ctx, newAttachment(p, second))
	})
	err := unitErr(s, func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreateAttachment(ctx, newAttachment(p, subject))
	})
	wantCode(t, err, policy.CodeSubjectAttached)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, ok, err := tx.Policies().FindSubjectAttachment(ctx, tn.ID, core.EnvTest, policy.SubjectWallet, subject)
		if !ok || got.ID != first.ID {
			t.Errorf("FindSubjectAttachment = %+v, %v", got, ok)
		}
		_, err2 := tx.Policies().LockAttachment(ctx, other.ID, core.EnvTest, first.ID)
		wantCode(t, err2, policy.CodeAttachmentNotFound)
		noErr(t, "Detach of another tenant", tx.Policies().Detach(ctx, other.ID, first.ID, ledgerNow()))
		if _, ok, _ := tx.Policies().FindSubjectAttachment(ctx, tn.ID, core.EnvTest, policy.SubjectWallet, subject); !ok {
			t.Error("another tenant's Detach detached this tenant's attachment")
		}
		noErr(t, "Detach", tx.Policies().Detach(ctx, tn.ID, first.ID, ledgerNow()))
		_, ok, _ = tx.Policies().FindSubjectAttachment(ctx, tn.ID, core.EnvTest, policy.SubjectWallet, subject)
		if ok {
			t.Error("a detached attachment is still the subject's")
		}
		return firstErr(err, tx.Policies().CreateAttachment(ctx, newAttachment(p, subject)))
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, err := tx.Policies().ListAttachments(ctx, tn.ID, p.ID, 10)
		if len(list) != 2 {
			t.Errorf("ListAttachments = %d active, want 2", len(list))
		}
		if foreign, _ := tx.Policies().ListAttachments(ctx, other.ID, p.ID, 10); len(foreign) != 0 {
			t.Errorf("ListAttachments under another tenant = %d, want none", len(foreign))
		}
		if n, _ := tx.Policies().DetachAll(ctx, other.ID, p.ID, ledgerNow()); n != 0 {
			t.Errorf("DetachAll under another tenant = %d, want 0", n)
		}
		n, err2 := tx.Policies().DetachAll(ctx, tn.ID, p.ID, ledgerNow())
		if n != 2 {
			t.Errorf("DetachAll = %d, want 2", n)
		}
		got, err3 := tx.Policies().LockAttachment(ctx, tn.ID, core.EnvTest, first.ID)
		if got.DetachedAt == nil {
			t.Error("a detached attachment lost its detachedAt")
		}
		return firstErr(err, err2, err3)
	})
}

func newDecision(p policy.Policy, v policy.Version, reference string) policy.Decision {
	return policy.Decision{ID: core.NewID(core.PrefixDecision), TenantID: p.TenantID, Environment: p.Environment, PolicyID: p.ID,
		VersionID: v.ID, PolicyVersion: v.Version, SHA256: v.SHA256, Source: policy.SourcePayment, ReferenceID: reference,
		Mode: policy.ModeEnforce, Transaction: policy.Transaction{AmountBaseUnits: 100},
		Verdict: policy.Verdict{Allow: false, Reason: "DAILY_LIMIT", Trace: []policy.TraceEntry{{Rule: "limits.dailyUsd", Result: policy.ResultFail, Code: "DAILY_LIMIT"}}},
		Blocked: true, CreatedAt: ledgerNow().Add(-time.Second)}
}

func policyDecisions(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	p, v := newPolicy(t, tn.ID, "50")
	createPolicy(t, s, p, v)
	a, b := newDecision(p, v, "pay_a"), newDecision(p, v, "pay_b")
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateDecision", tx.Policies().CreateDecision(ctx, a))
		return tx.Policies().CreateDecision(ctx, b)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		f := ports.DecisionFilter{TenantID: tn.ID, Environment: core.EnvTest, PolicyID: p.ID}
		list, total, err := tx.Policies().ListDecisions(ctx, f, ports.Page{Take: 10})
		wantTotal(t, "ListDecisions", total, 2)
		wantIDs(t, "ListDecisions", ids(list, func(d policy.Decision) string { return d.ID }), []string{b.ID, a.ID})
		f.ReferenceID = "pay_a"
		list, _, err2 := tx.Policies().ListDecisions(ctx, f, ports.Page{Take: 10})
		wantIDs(t, "ListDecisions by reference", ids(list, func(d policy.Decision) string { return d.ID }), []string{a.ID})
		got, err3 := tx.Policies().FindDecision(ctx, tn.ID, core.EnvTest, a.ID)
		if got.Verdict.Allow || len(got.Verdict.Trace) != 1 || got.Verdict.Trace[0].Code != "DAILY_LIMIT" || !got.Blocked || got.Mode != policy.ModeEnforce {
			t.Errorf("FindDecision = %+v", got)
		}
		_, err4 := tx.Policies().FindDecision(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err4, "DECISION_NOT_FOUND")
		return firstErr(err, err2, err3)
	})
}
