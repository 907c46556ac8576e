package issuer

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/ports"
)

func TestSandbox_BehavesLikeAnIssuer(t *testing.T) {
	ctx := context.Background()
	s := NewSandbox()
	a, err := s.IssueCard(ctx, ports.IssueCardInput{Reference: "card_1", TenantID: "ten_1"})
	if err != nil || len(a.Last4) != 4 || a.IssuerCardID == "" || a.FundingAccountID != "" {
		t.Fatalf("%+v %v", a, err)
	}
	again, _ := s.IssueCard(ctx, ports.IssueCardInput{Reference: "card_1", TenantID: "ten_1"})
	if again != a {
		t.Fatalf("a retried issuance must answer the same card: %+v %+v", a, again)
	}
	b, _ := s.IssueCard(ctx, ports.IssueCardInput{Reference: "card_2", TenantID: "ten_1", FundingAccount: true})
	if b.IssuerCardID == a.IssuerCardID || b.FundingAccountID == "" {
		t.Fatalf("%+v", b)
	}
	if err := s.SetCardStatus(ctx, a.IssuerCardID, false); err != nil {
		t.Fatal(err)
	}
	if active, known := s.Active(a.IssuerCardID); active || !known {
		t.Fatal("status not recorded")
	}
	if err := s.SetCardStatus(ctx, "ic_other", true); err == nil {
		t.Fatal("an unknown card must be refused")
	}
	k1, _ := s.CreateEphemeralKey(ctx, ports.EphemeralKeyInput{IssuerCardID: a.IssuerCardID, Platform: "vendor_a"})
	k2, _ := s.CreateEphemeralKey(ctx, ports.EphemeralKeyInput{IssuerCardID: a.IssuerCardID, Platform: "vendor_a"})
	if k1.Secret == k2.Secret || k1.Platform != "vendor_a" || k1.ExpiresAt.IsZero() {
		t.Fatalf("%+v %+v", k1, k2)
	}
}
