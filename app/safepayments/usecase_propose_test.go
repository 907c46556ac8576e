package safepayments

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Fast tests of ReadProposal and Propose over ports/fake: an in-memory store and chain.

// gates answers each gate as scripted and counts the calls that reached it.
type gates struct {
	screen, policy, approval *core.Error
	agent                    error
	calls                    []string
}

// Screen is the screening vendor: a scripted refusal is one reason found.
func (g *gates) Screen(context.Context, ports.ScreeningInput) ([]offramp.HoldReason, error) {
	g.calls = append(g.calls, "screening")
	if g.screen != nil {
		return []offramp.HoldReason{offramp.RejectSanctionsReviewRequired}, nil
	}
	return nil, nil
}

func (g *gates) GateSafePayment(context.Context, auth.Principal, safepay.Payment) (*core.Error, error) {
	g.calls = append(g.calls, "policy")
	return g.policy, nil
}

func (g *gates) GateAgentPayment(context.Context, auth.Principal, safepay.Payment) error {
	g.calls = append(g.calls, "agent")
	return g.agent
}

// approvalGate is the last gate; it has the same method name as the policy gate, so it is
// its own type over the same script.
type approvalGate struct{ *gates }

func (a approvalGate) GateSafePayment(context.Context, auth.Principal, safepay.Payment, string) (*core.Error, error) {
	a.calls = append(a.calls, "approval")
	return a.approval, nil
}

type proposeWorld struct {
	store  *fake.Store
	chain  *fake.Chain
	gates  *gates
	svc    *Service
	p      auth.Principal
	wallet wallet.Wallet
}

// newProposeWorld deploys a 1-of-1 Safe on the fake chain and stores its DEPLOYED wallet.
func newProposeWorld(t *testing.T) *proposeWorld {
	t.Helper()
	ctx := context.Background()
	w := &proposeWorld{store: fake.NewStore(), chain: fake.NewChain(84532), gates: &gates{}}
	w.p = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	key, _ := crypto.GenerateKey()
	owner := crypto.PubkeyToAddress(key.PublicKey)
	_, address, err := w.chain.DeploySafe(ctx, ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	w.wallet = w.storeWallet(t, address.Hex(), wallet.StatusDeployed, owner)
	svc, err := New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: &fake.Clock{At: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)},
		Chains: map[core.Environment]ports.Chain{core.EnvTest: w.chain}, Screening: w.gates, PolicyGate: w.gates, AgentGate: w.gates,
		ApprovalGate: approvalGate{w.gates}})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	return w
}

func (w *proposeWorld) storeWallet(t *testing.T, address string, status wallet.Status, owner common.Address) wallet.Wallet {
	t.Helper()
	wl := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: w.p.TenantID, Environment: core.EnvTest, Name: "ops", Purpose: wallet.PurposeGeneral,
		ChainID: 84532, Address: address, Owners: []wallet.Owner{{Address: owner.Hex(), Role: wallet.RoleAdminOwner}}, Threshold: 1, Status: status}
	if err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, wl) }); err != nil {
		t.Fatal(err)
	}
	return wl
}

func (w *proposeWorld) request(amount string) safepay.Request {
	chainID := int64(84532)
	return safepay.Request{SourceWalletID: w.wallet.ID, AmountValue: amount, AmountAsset: "usdc",
		Destination: &safepay.DestinationInput{Type: "address", Address: "0x00000000000000000000000000000000000000Be", ChainID: &chainID}}
}

func (w *proposeWorld) propose(t *testing.T, in safepay.Request) (safepay.Payment, error) {
	t.Helper()
	read, err := w.svc.ReadProposal(context.Background(), w.p, in)
	if err != nil {
		return safepay.Payment{}, err
	}
	return w.svc.Propose(context.Background(), w.p, read)
}

func (w *proposeWorld) payments(t *testing.T) []safepay.Payment {
	t.Helper()
	var out []safepay.Payment
	_ = w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) (err error) {
		out, _, err = tx.Payments().ListPayments(ctx, w.p.TenantID, w.p.Environment, ports.Page{Take: 100})
		return err
	})
	return out
}

func TestSafepay_Propose(t *testing.T) {
	t.Run("a proposal awaits signatures on the Safe's next nonce with the SafeTx hash its owners sign", func(t *testing.T) {
		w := newProposeWorld(t)
		pay, err := w.propose(t, w.request("12.5"))
		if err != nil {
			t.Fatal(err)
		}
		if pay.Status != safepay.StatusAwaitingSignature || pay.SafeNonce != 0 || pay.AmountBaseUnits != 12_500_000 || pay.Threshold != 1 ||
			pay.SafeAddress != w.wallet.Address {
			t.Fatalf("payment %+v", pay)
		}
		tx, err := safe.TokenTransfer(w.chain.USDCAddress(), common.HexToAddress(pay.DestinationAddress), big.NewInt(12_500_000), 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := safe.TransactionHash(84532, common.HexToAddress(w.wallet.Address), tx).Hex(); pay.SafeTxHash != want {
			t.Fatalf("safeTxHash %s, want %s", pay.SafeTxHash, want)
		}
		if stored, ok := w.store.Payment(pay.ID); !ok || stored.SafeTxHash != pay.SafeTxHash {
			t.Fatalf("stored %+v", stored)
		}
		if events := w.store.Events(pay.ID); len(events) != 1 || events[0].Type != "safe_payment.awaiting_signature" {
			t.Fatalf("events %+v", events)
		}
		if got := w.gates.calls; len(got) != 4 || got[0] != "screening" || got[1] != "policy" || got[2] != "agent" || got[3] != "approval" {
			t.Fatalf("gate order %v", got)
		}
	})
	t.Run("queued proposals take consecutive nonces; a failed one gives its nonce back", func(t *testing.T) {
		w := newProposeWorld(t)
		first, _ := w.propose(t, w.request("1"))
		second, err := w.propose(t, w.request("2"))
		if err != nil || first.SafeNonce != 0 || second.SafeNonce != 1 {
			t.Fatalf("nonces %d, %d (%v)", first.SafeNonce, second.SafeNonce, err)
		}
		w.gates.policy = core.E(policy.CodeDenied, "over the daily cap").WithDetails(map[string]any{"reason": "DAILY_CAP"})
		_, err = w.propose(t, w.request("3"))
		if !kernel.IsCommitted(err) || !errors.Is(err, &core.Error{Code: policy.CodeDenied}) {
			t.Fatalf("a policy deny: %v", err)
		}
		pays := w.payments(t)
		if len(pays) != 3 || pays[0].Status != safepay.StatusFailed || pays[0].SafeTxHash != "" {
			t.Fatalf("payments %+v: the denied one is recorded FAILED with nothing to sign", pays)
		}
		w.gates.policy = nil
		if third, err := w.propose(t, w.request("4")); err != nil || third.SafeNonce != 2 {
			t.Fatalf("after a FAILED proposal: nonce %d, %v", third.SafeNonce, err)
		}
	})
	t.Run("screening, agent and approval refusals record no payment", func(t *testing.T) {
		w := newProposeWorld(t)
		w.gates.screen = core.E("DESTINATION_SCREENING_REJECTED", "sanctioned")
		if _, err := w.propose(t, w.request("1")); !errors.Is(err, &core.Error{Code: "DESTINATION_SCREENING_REJECTED"}) {
			t.Fatalf("screening: %v", err)
		}
		w.gates.screen, w.gates.agent = nil, core.E("AGENT_LIMIT", "over the agent's cap")
		if _, err := w.propose(t, w.request("1")); !errors.Is(err, &core.Error{Code: "AGENT_LIMIT"}) {
			t.Fatalf("agent: %v", err)
		}
		w.gates.agent, w.gates.approval = nil, core.E("TWOFA_REQUIRED", "approve it")
		if _, err := w.propose(t, w.request("1")); !kernel.IsCommitted(err) || !errors.Is(err, &core.Error{Code: "TWOFA_REQUIRED"}) {
			t.Fatalf("approval: %v", err)
		}
		if pays := w.payments(t); len(pays) != 0 {
			t.Fatalf("refusals recorded %+v", pays)
		}
	})
	t.Run("a wallet not yet deployed and another tenant's wallet cannot pay", func(t *testing.T) {
		w := newProposeWorld(t)
		pending := w.storeWallet(t, common.HexToAddress("0x00000000000000000000000000000000000000f0").Hex(), wallet.StatusPendingDeployment,
			common.HexToAddress("0x00000000000000000000000000000000000000f1"))
		in := w.request("1")
		in.SourceWalletID = pending.ID
		if _, err := w.propose(t, in); !errors.Is(err, &core.Error{Code: core.CodeInvalidState}) {
			t.Fatalf("undeployed: %v", err)
		}
		w.p.TenantID = core.NewID(core.PrefixTenant)
		if _, err := w.propose(t, w.request("1")); !errors.Is(err, &core.Error{Code: core.CodeWalletNotFound}) {
			t.Fatalf("another tenant's wallet: %v", err)
		}
	})
	t.Run("a wallet destination resolves to that wallet's address", func(t *testing.T) {
		w := newProposeWorld(t)
		other := w.storeWallet(t, common.HexToAddress("0x00000000000000000000000000000000000000c0").Hex(), wallet.StatusDeployed,
			common.HexToAddress("0x00000000000000000000000000000000000000c1"))
		in := w.request("5")
		in.Destination = &safepay.DestinationInput{Type: "wallet", WalletID: other.ID}
		pay, err := w.propose(t, in)
		if err != nil || pay.DestinationAddress != other.Address || pay.DestinationWallet != other.ID {
			t.Fatalf("payment %+v, %v", pay, err)
		}
	})
}

// unitCounter records, in order, each outermost unit of work (and whether it rolled back) and
// each screening call (and whether a unit was open when it was made).
type unitCounter struct {
	*fake.Store
	log []string
}

func (c *unitCounter) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	nested := c.InUnit()
	err := c.Store.InTx(ctx, fn)
	if !nested {
		c.log = append(c.log, map[bool]string{true: "unit", false: "rolled back"}[err == nil])
	}
	return err
}

type countedScreening struct {
	units   *unitCounter
	reasons []offramp.HoldReason
}

func (s countedScreening) Screen(context.Context, ports.ScreeningInput) ([]offramp.HoldReason, error) {
	s.units.log = append(s.units.log, map[bool]string{true: "screening inside a unit", false: "screening"}[s.units.InUnit()])
	return s.reasons, nil
}

// TestSafepay_ProposeOneUnit: with screening configured, a proposal prepares (one short read,
// then screening, outside any transaction) and applies in one unit of work that commits; no
// unit is rolled back and run again.
func TestSafepay_ProposeOneUnit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reasons []offramp.HoldReason
		code    core.Code
	}{
		{"a proposal screening passes", nil, ""},
		{"a proposal screening refuses", []offramp.HoldReason{offramp.RejectSanctionsReviewRequired}, safepay.CodeScreeningRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newProposeWorld(t)
			counter := &unitCounter{Store: w.store}
			svc, err := New(Deps{Store: counter, Jobs: fake.Jobs{Store: w.store}, Clock: &fake.Clock{At: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)},
				Chains: map[core.Environment]ports.Chain{core.EnvTest: w.chain}, Screening: countedScreening{units: counter, reasons: tc.reasons},
				PolicyGate: w.gates, AgentGate: w.gates, ApprovalGate: approvalGate{w.gates}})
			if err != nil {
				t.Fatal(err)
			}
			read, err := svc.ReadProposal(context.Background(), w.p, w.request("5"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = svc.Propose(context.Background(), w.p, read)
			if tc.code == "" && err != nil || tc.code != "" && !errors.Is(err, &core.Error{Code: tc.code}) {
				t.Fatalf("propose: %v, want %q", err, tc.code)
			}
			if got := strings.Join(counter.log, ","); got != "unit,screening,unit" {
				t.Fatalf("units and calls %s, want a read, screening outside it, then one unit that commits", got)
			}
		})
	}
}
