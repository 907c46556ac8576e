package ledger

import (
	"testing"

	"github.com/corridorhq/corridor/core"
)

// TestShare: a platform account's per-tenant share keeps its kind, sign rule and platform
// ownership, is named platform-reference@tenant and reads back to both; a tenant account is
// never shared; Home and BaseReference place and report each account.
func TestShare(t *testing.T) {
	fees := PlatformFees(core.EnvTest, AssetUSDC)
	share := Share(fees, "ten_a")
	if share.Reference != "platform:fees@ten_a" || share.TenantID != "" || share.Kind != KindPlatformFees || !share.NonNegative {
		t.Fatalf("share %+v", share)
	}
	if base, tenant, ok := ShareOf(share.Reference); !ok || base != PlatformFeesRef || tenant != "ten_a" {
		t.Fatalf("ShareOf = %q %q %v", base, tenant, ok)
	}
	for _, ref := range []string{PlatformFeesRef, "@ten_a", "platform:fees@", "world:bank"} {
		if _, _, ok := ShareOf(ref); ok {
			t.Fatalf("%q read as a share", ref)
		}
	}
	own := TenantAvailable(core.EnvTest, AssetUSDC, "ten_a")
	if Share(own, "ten_b") != own || Share(fees, "") != fees {
		t.Fatal("a tenant account or an empty tenant was shared")
	}
	cases := []struct {
		spec       AccountSpec
		home, base string
	}{
		{share, "ten_a", PlatformFeesRef},
		{fees, "", PlatformFeesRef},
		{own, "ten_a", TenantAvailableRef("ten_a")},
	}
	for _, c := range cases {
		a, err := NewAccount(core.NewID(core.PrefixAccount), c.spec, t0)
		if err != nil {
			t.Fatal(err)
		}
		if a.Home() != c.home || a.BaseReference() != c.base {
			t.Fatalf("%s: home %q base %q, want %q %q", c.spec.Reference, a.Home(), a.BaseReference(), c.home, c.base)
		}
	}
}

// TestHomeOf: a transfer belongs to its first debited account's home, else its first credited
// one's, else to the platform ("").
func TestHomeOf(t *testing.T) {
	accounts := map[string]Account{
		"acc_a": {ID: "acc_a", TenantID: "ten_a"},
		"acc_b": {ID: "acc_b", TenantID: "ten_b"},
		"acc_s": {ID: "acc_s", Reference: "platform:sandbox_pool@ten_s"},
		"acc_w": {ID: "acc_w", Reference: "world:bank"},
		"acc_x": {ID: "acc_x", Reference: "platform:fees"},
	}
	cases := []struct {
		postings []Posting
		want     string
	}{
		{[]Posting{{"acc_a", 5}, {"acc_b", -5}}, "ten_b"},
		{[]Posting{{"acc_a", 5}, {"acc_w", -5}}, "ten_a"},
		{[]Posting{{"acc_s", -5}, {"acc_w", 5}}, "ten_s"},
		{[]Posting{{"acc_w", -5}, {"acc_x", 5}}, ""},
	}
	for _, c := range cases {
		if got := HomeOf(Transfer{Postings: c.postings}, accounts); got != c.want {
			t.Fatalf("%v: home %q, want %q", c.postings, got, c.want)
		}
	}
}
