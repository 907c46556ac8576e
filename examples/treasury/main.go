// Command treasury runs a treasury account through the generated Go client: an account of two
// buckets (an operating Safe and a reserve Safe, with target shares) is created and its Safes
// deployed, the operating bucket is funded from the faucet, a SWEEP_EXCESS rule keeps it at 40
// USD, and once the sandbox clock moves the account a day ahead the rule proposes a sweep of
// the excess, a Safe payment the owners sign (signing: examples/safepayment).
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/treasury
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// waitLimit bounds every wait for the chain.
const waitLimit = 2 * time.Minute

func main() {
	api, err := client()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), api); err != nil {
		log.Fatal(err)
	}
}

// run is the walkthrough, step by step.
// long: an example reads top to bottom as one story, the way a partner follows it.
func run(ctx context.Context, api *corridor.ClientWithResponses) error {
	owner, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	threshold, operatingBps, reserveBps := 1, 6000, 4000
	created, err := api.CreateTreasuryAccountWithResponse(ctx, &corridor.CreateTreasuryAccountParams{}, corridor.TreasuryAccountRequest{
		Name: "company treasury", Threshold: &threshold,
		Owners: []corridor.WalletOwnerRequest{{Address: crypto.PubkeyToAddress(owner.PublicKey).Hex(), Role: corridor.WalletOwnerRequestRoleADMINOWNER}},
		Buckets: []corridor.TreasuryBucketRequest{
			{Name: "Operating", Kind: corridor.TreasuryBucketRequestKindOPERATING, TargetBps: &operatingBps},
			{Name: "Reserve", Kind: corridor.TreasuryBucketRequestKindRESERVE, TargetBps: &reserveBps},
		}})
	if err != nil || created.JSON202 == nil {
		return fmt.Errorf("create account: %v %s", err, created.Body)
	}
	id := created.JSON202.AccountId
	var account corridor.TreasuryAccount
	if err := waitFor(func() (bool, error) {
		read, err := api.GetTreasuryAccountWithResponse(ctx, id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read account: %v", err)
		}
		account = *read.JSON200
		for _, b := range account.Buckets {
			if b.WalletStatus == string(corridor.WalletDetailStatusFAILED) {
				return false, fmt.Errorf("the Safe of bucket %s failed to deploy", b.Name)
			}
			if b.WalletStatus != string(corridor.WalletDetailStatusDEPLOYED) {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return err
	}
	operating, reserve := account.Buckets[0], account.Buckets[1]
	for _, b := range account.Buckets {
		fmt.Printf("account %s bucket %s %s (%s, target %d bps) in Safe %s\n", id, b.BucketId, b.Name, b.Kind, b.TargetBps, b.Address)
	}

	if err := drip(ctx, api, operating.WalletId, "100"); err != nil {
		return err
	}
	threshold40 := "40"
	rule, err := api.CreateTreasuryAccountRuleWithResponse(ctx, id, &corridor.CreateTreasuryAccountRuleParams{}, corridor.TreasuryRuleRequest{
		Type: corridor.TreasuryRuleRequestTypeSWEEPEXCESS, SourceBucketId: &operating.BucketId, DestBucketId: &reserve.BucketId, ThresholdUsd: &threshold40})
	if err != nil || rule.JSON201 == nil {
		return fmt.Errorf("create rule: %v %s", err, rule.Body)
	}
	fmt.Printf("rule %s %s: above %s USD in %s, sweep to %s every %d s\n", rule.JSON201.RuleId, rule.JSON201.Type,
		*rule.JSON201.ThresholdUsd, operating.Name, reserve.Name, rule.JSON201.IntervalSeconds)

	// The sandbox clock: a day passes for this account, its yield is booked and its rules run.
	days := 1
	if adv, err := api.SandboxAdvanceTreasuryAccountWithResponse(ctx, id, &corridor.SandboxAdvanceTreasuryAccountParams{},
		corridor.TreasuryAdvanceRequest{Days: &days}); err != nil || adv.StatusCode() != http.StatusOK {
		return fmt.Errorf("advance the sandbox clock: %v", err)
	}
	var sweep corridor.TreasurySweep
	if err := waitFor(func() (bool, error) {
		list, err := api.ListTreasuryAccountSweepsWithResponse(ctx, id, &corridor.ListTreasuryAccountSweepsParams{})
		if err != nil || list.JSON200 == nil {
			return false, fmt.Errorf("list sweeps: %v", err)
		}
		if len(list.JSON200.Sweeps) == 0 {
			return false, nil
		}
		sweep = list.JSON200.Sweeps[0]
		return true, nil
	}); err != nil {
		return err
	}
	fmt.Printf("sweep %s of %s USD from %s to %s: %s, payment %s %s\n", sweep.SweepId, sweep.AmountUsd, operating.Name, reserve.Name,
		sweep.Status, sweep.PaymentId, sweep.PaymentStatus)
	return nil
}

// drip sends amount USDC from the sandbox faucet to the wallet and waits for it to land.
func drip(ctx context.Context, api *corridor.ClientWithResponses, walletID, amount string) error {
	asset := corridor.FundRequestAssetUsdc
	d, err := api.FundWalletWithResponse(ctx, walletID, &corridor.FundWalletParams{}, corridor.FundRequest{Asset: &asset, Amount: &amount})
	if err != nil || d.JSON201 == nil {
		return fmt.Errorf("fund: %v %s", err, d.Body)
	}
	return waitFor(func() (bool, error) {
		read, err := api.GetFaucetDripWithResponse(ctx, d.JSON201.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read drip: %v", err)
		}
		if read.JSON200.Status == corridor.DripStatusFAILED {
			return false, fmt.Errorf("the faucet drip failed")
		}
		return read.JSON200.Status == corridor.DripStatusCONFIRMED, nil
	})
}

// waitFor polls done every half second until it holds or fails, for at most waitLimit.
func waitFor(done func() (bool, error)) error {
	deadline := time.Now().Add(waitLimit)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up waiting after %s", waitLimit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// client is the generated client for CORRIDOR_URL with CORRIDOR_API_KEY.
func client() (*corridor.ClientWithResponses, error) {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv("CORRIDOR_API_KEY")
	if base == "" {
		base = "http://localhost:8080"
	}
	if key == "" {
		return nil, fmt.Errorf("set CORRIDOR_API_KEY to a TEST key")
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
