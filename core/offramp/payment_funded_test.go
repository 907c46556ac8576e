package offramp

import "testing"

// TestPayment_ClaimFunded: the money of a redeemed claim's payment sits in the escrow until the
// payment locks it or re-reserves; a pending claim and a payment without a claim never do.
func TestPayment_ClaimFunded(t *testing.T) {
	cases := []struct {
		name       string
		p          Payment
		claim, any bool
	}{
		{"no claim, policy check", Payment{Status: StatusPolicyCheck, HoldTransferID: "tr"}, false, false},
		{"pending claim", Payment{ClaimID: "clm", Status: StatusPendingClaim}, false, false},
		{"redeemed, funded escrow", Payment{ClaimID: "clm", Status: StatusPolicyCheck}, true, true},
		{"redeemed, re-reserved", Payment{ClaimID: "clm", Status: StatusPolicyCheck, HoldTransferID: "tr"}, false, false},
		{"locked", Payment{ClaimID: "clm", Status: StatusFundsLocked}, false, true},
		{"canceled", Payment{ClaimID: "clm", Status: StatusCanceled}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.ClaimFunded(); got != c.claim {
				t.Errorf("ClaimFunded() = %v, want %v", got, c.claim)
			}
			if got := c.p.Funded(); got != c.any {
				t.Errorf("Funded() = %v, want %v", got, c.any)
			}
		})
	}
}

// TestPayment_LedgerRef: the reference format is durable (posted transfers carry it).
func TestPayment_LedgerRef(t *testing.T) {
	if got := (Payment{ID: "ofp_1"}).LedgerRef("reserve", 2); got != "offramp:ofp_1:reserve:2" {
		t.Fatalf("LedgerRef = %q", got)
	}
}
