package wallet

import (
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

const (
	a1 = "0x52908400098527886E0F7030069857D2E4169EE7"
	a2 = "0x8617E340B3D01FA5F11F306F4090FD50E238070D"
)

func intp(v int) *int       { return &v }
func i64p(v int64) *int64   { return &v }
func strp(v string) *string { return &v }

func TestDefine(t *testing.T) {
	owners := []OwnerInput{{Address: a1, Role: "ADMIN_OWNER"}, {Address: "0x8617e340b3d01fa5f11f306f4090fd50e238070d", Role: "finance_owner", Label: strp(" cfo ")}}
	d, err := Define(core.EnvTest, " Ops ", owners, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "Ops" || d.Threshold != 1 || d.ChainID != SandboxChainID || d.Owners[1].Address != a2 || d.Owners[1].Role != RoleFinanceOwner || d.Owners[1].Label != "cfo" {
		t.Fatalf("definition %+v", d)
	}
	if d, _ := Define(core.EnvLive, "x", owners, intp(2), nil); d.ChainID != LiveChainID || d.Threshold != 2 {
		t.Fatalf("live default %+v", d)
	}
	cases := []struct {
		name      string
		env       core.Environment
		owners    []OwnerInput
		threshold *int
		chain     *int64
		field     string
	}{
		{"no owners", core.EnvTest, nil, nil, nil, "owners"},
		{"bad address", core.EnvTest, []OwnerInput{{Address: "0x12", Role: "AGENT"}}, nil, nil, "owners[0].address"},
		{"duplicate owner", core.EnvTest, []OwnerInput{{Address: a1, Role: "AGENT"}, {Address: a1, Role: "AGENT"}}, nil, nil, "owners[1].address"},
		{"unknown role", core.EnvTest, []OwnerInput{{Address: a1, Role: "BOSS"}}, nil, nil, "owners[0].role"},
		{"threshold above owners", core.EnvTest, owners, intp(3), nil, "threshold"},
		{"zero threshold", core.EnvTest, owners, intp(0), nil, "threshold"},
		{"live chain with a test key", core.EnvTest, owners, nil, i64p(LiveChainID), "chainId"},
		{"unknown chain", core.EnvTest, owners, nil, i64p(1), "chainId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Define(tc.env, "w", tc.owners, tc.threshold, tc.chain)
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeValidationFailed {
				t.Fatalf("err = %v", err)
			}
			if _, ok := e.Details["fields"].(map[string]any)[tc.field]; !ok {
				t.Fatalf("field %s not named: %v", tc.field, e.Details)
			}
		})
	}
	if _, err := Define(core.EnvTest, "", owners, nil, nil); err == nil {
		t.Fatal("empty name accepted")
	}
}

// TestWallet_Transitions walks docs/api.md's wallet table row by row (PENDING_DEPLOYMENT →
// DEPLOYING → DEPLOYED, or FAILED) and refuses everything else.
func TestWallet_Transitions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	all := []Status{StatusPendingDeployment, StatusDeploying, StatusDeployed, StatusFailed}
	triggers := []Trigger{TriggerSubmitted, TriggerResubmitted, TriggerConfirmed, TriggerGaveUp}
	want := map[transition]Status{
		{StatusPendingDeployment, TriggerSubmitted}: StatusDeploying,
		{StatusPendingDeployment, TriggerConfirmed}: StatusDeployed,
		{StatusPendingDeployment, TriggerGaveUp}:    StatusFailed,
		{StatusDeploying, TriggerResubmitted}:       StatusDeploying,
		{StatusDeploying, TriggerConfirmed}:         StatusDeployed,
		{StatusDeploying, TriggerGaveUp}:            StatusFailed,
	}
	for _, from := range all {
		for _, trig := range triggers {
			got, err := Wallet{Status: from}.Apply(trig, now, "0xabc", "why")
			to, allowed := want[transition{from, trig}]
			if !allowed {
				if !errors.Is(err, core.ErrInvalidState) || got.Status != from {
					t.Errorf("%s on %s: got %s, %v; want INVALID_STATE", from, trig, got.Status, err)
				}
				continue
			}
			if err != nil || got.Status != to {
				t.Errorf("%s on %s: got %s, %v; want %s", from, trig, got.Status, err, to)
			}
		}
	}
	w, _ := Wallet{Status: StatusPendingDeployment}.Apply(TriggerSubmitted, now, "0x1", "")
	w, _ = w.Apply(TriggerConfirmed, now, "", "")
	if w.DeployAttempts != 1 || w.DeployTxHash != "0x1" || w.DeployedAt == nil || w.PredictedAddress() {
		t.Fatalf("effects: %+v", w)
	}
	f, _ := Wallet{Status: StatusDeploying}.Apply(TriggerGaveUp, now, "", "reverted")
	if f.FailureReason != "reverted" || !f.Status.Terminal() {
		t.Fatalf("failure: %+v", f)
	}
}
