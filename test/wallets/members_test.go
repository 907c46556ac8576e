package wallets

import (
	"fmt"
	"testing"
)

// TestMembers_RevokeListsWalletsTheSignerStillOwns: the deployed wallet is judged by its on-chain
// owners, the wallet without the signer is not listed, and only the caller's environment counts.
func TestMembers_RevokeListsWalletsTheSignerStillOwns(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	_, addrs := owners(t, 3)
	signer := addrs[0]
	token := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "signer@example.com"}).Expect(t, 201).JSON(t)["inviteToken"].(string)
	member := env().AcceptInvite(t, "signer@example.com", token, map[string]any{"signerAddress": signer}).Expect(t, 200).JSON(t)

	owned := ten.Root.Post("/v1/wallets", walletBody("owned", []string{signer, addrs[1]}, 1)).Expect(t, 201).JSON(t)
	notOwned := ten.Root.Post("/v1/wallets", walletBody("other", addrs[1:], 2)).Expect(t, 201).JSON(t)
	waitDeployed(t, ten.Root, owned["id"].(string))
	waitDeployed(t, ten.Root, notOwned["id"].(string))

	// A LIVE caller is answered with LIVE wallets only: the TEST wallet the signer owns is not named.
	out := liveClient(t, ten).Post("/v1/tenants/members/"+member["id"].(string)+"/revoke", nil).Expect(t, 200).JSON(t)
	if ids, ok := out["stillOwnerOfWalletIds"].([]any); out["status"] != "REVOKED" || !ok || len(ids) != 0 {
		t.Fatalf("revoke by a LIVE key: %v", out)
	}
	// Revoking again is harmless, and the TEST caller (the owner's session: a TEST key holds no
	// LIVE power, so it revokes no member) sees the TEST wallet.
	out = ten.Session.Post("/v1/tenants/members/"+member["id"].(string)+"/revoke", nil).Expect(t, 200).JSON(t)
	if out["status"] != "REVOKED" || fmt.Sprint(out["stillOwnerOfWalletIds"]) != fmt.Sprint([]any{owned["id"]}) {
		t.Fatalf("revoke: %v", out)
	}

	// A member without a signer owns nothing.
	pending := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "pending@example.com"}).Expect(t, 201).JSON(t)
	out = ten.Session.Post("/v1/tenants/members/"+pending["id"].(string)+"/revoke", nil).Expect(t, 200).JSON(t)
	if ids, ok := out["stillOwnerOfWalletIds"].([]any); !ok || len(ids) != 0 {
		t.Fatalf("pending member: %v", out)
	}
}
