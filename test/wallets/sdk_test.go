package wallets

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// TestWallets_GoClient/created, listed and read through the generated client: the wallets flow
// spoken through sdk/go/corridor: a 2-of-2 wallet is created with the canonical body of the
// POST /v1/wallets union (its predicted address answered at once), deploys, appears in the
// list, and reads back with its owners, threshold and live balances.
func TestWallets_GoClient(t *testing.T) {
	t.Parallel()
	t.Run("created, listed and read through the generated client", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		api := env().SDK(t, env().NewTenant(t).RootKey)
		owners := []harness.Owner{harness.NewOwner(t), harness.NewOwner(t)}
		threshold := 2
		var body corridor.CreateWalletBody
		if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "treasury ops", Threshold: &threshold,
			Owners: []corridor.WalletOwnerRequest{
				{Address: owners[0].Address.Hex(), Role: corridor.WalletOwnerRequestRoleADMINOWNER},
				{Address: owners[1].Address.Hex(), Role: corridor.WalletOwnerRequestRoleFINANCEOWNER}}}); err != nil {
			t.Fatal(err)
		}
		created, err := api.CreateWalletWithResponse(ctx, &corridor.CreateWalletParams{}, body)
		if err != nil || created.JSON201 == nil {
			t.Fatalf("create: %v, status %d: %s", err, created.StatusCode(), created.Body)
		}
		w, err := created.JSON201.AsWallet()
		if err != nil || !strings.HasPrefix(w.Id, "wal_") || w.Threshold != 2 || len(w.Owners) != 2 || w.Address == "" {
			t.Fatalf("created %+v (%v)", w, err)
		}
		deployed := harness.Until(t, "wallet deployed", func() corridor.WalletDetail {
			read, err := api.GetWalletWithResponse(ctx, w.Id)
			if err != nil || read.JSON200 == nil {
				t.Fatalf("read: %v, status %d", err, read.StatusCode())
			}
			return *read.JSON200
		}, func(d corridor.WalletDetail) bool {
			// Until the deployment ends: DEPLOYING may be read between PENDING_DEPLOYMENT and DEPLOYED.
			return d.Status == corridor.WalletDetailStatusDEPLOYED || d.Status == corridor.WalletDetailStatusFAILED
		})
		if deployed.Status != corridor.WalletDetailStatusDEPLOYED || deployed.Address != w.Address || deployed.Name != "treasury ops" {
			t.Fatalf("deployed %+v", deployed)
		}
		take := 10
		list, err := api.ListWalletsWithResponse(ctx, &corridor.ListWalletsParams{Take: &take})
		if err != nil || list.JSON200 == nil {
			t.Fatalf("list: %v, status %d", err, list.StatusCode())
		}
		if list.JSON200.Total != 1 || len(list.JSON200.Wallets) != 1 || list.JSON200.Wallets[0].Id != w.Id {
			t.Fatalf("list %+v", list.JSON200)
		}
		missing, err := api.GetWalletWithResponse(ctx, "wal_nothere")
		if err != nil || missing.JSON404 == nil || missing.JSON404.Code != corridor.ErrorEnvelope404CodeWALLETNOTFOUND {
			t.Fatalf("a missing wallet: %v, status %d: %s", err, missing.StatusCode(), missing.Body)
		}
	})
}
