package safepayments

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Fast tests of a payment's hold on its wallet's mirror (holdForSend) over ports/fake. The fake
// chain mines at once and the fake store runs no mirror, so a hold placed stays until a test
// looks at it.

type holdWorld struct {
	*proposeWorld
	owner *ecdsa.PrivateKey
	clock *fake.Clock
}

// newHoldWorld is a 1-of-1 Safe whose owner key the test holds, the chain holding onchain USDC
// at the Safe and the ledger's mirror mirrored of it.
func newHoldWorld(t *testing.T, onchain, mirrored int64) *holdWorld {
	t.Helper()
	ctx := context.Background()
	w := &holdWorld{proposeWorld: &proposeWorld{store: fake.NewStore(), chain: fake.NewChain(84532), gates: &gates{}},
		clock: &fake.Clock{At: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}}
	w.p = newProposeWorld(t).p
	w.owner, _ = crypto.GenerateKey()
	_, address, err := w.chain.DeploySafe(ctx, ports.SafeConfig{Owners: []common.Address{crypto.PubkeyToAddress(w.owner.PublicKey)}, Threshold: 1, SaltNonce: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	w.wallet = w.storeWallet(t, address.Hex(), wallet.StatusDeployed, crypto.PubkeyToAddress(w.owner.PublicKey))
	if _, err := w.chain.MintUSDC(ctx, address, big.NewInt(onchain)); err != nil {
		t.Fatal(err)
	}
	w.mirror(t, mirrored)
	if w.svc, err = New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: w.clock,
		Chains: map[core.Environment]ports.Chain{core.EnvTest: w.chain}, Screening: w.gates, PolicyGate: w.gates, AgentGate: w.gates,
		ApprovalGate: approvalGate{w.gates}}); err != nil {
		t.Fatal(err)
	}
	return w
}

// mirror books amount into the wallet's mirror, as the indexer would for a deposit.
func (w *holdWorld) mirror(t *testing.T, amount int64) {
	t.Helper()
	if amount == 0 {
		return
	}
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		accs, err := tx.Ledger().OpenAccounts(ctx, w.clock.Now(), ledger.World(core.EnvTest, ledger.AssetUSDC, ledger.ChainRail(84532)),
			ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, w.p.TenantID, w.wallet.ID))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, w.clock.Now(), ledger.TransferSpec{Reference: core.NewID("dep"), Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(accs[0].ID, accs[1].ID, amount)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// signed is a payment of amount (base units), signed by the owner: READY_TO_EXECUTE.
func (w *holdWorld) signed(t *testing.T, amount string) safepay.Payment {
	t.Helper()
	pay, err := w.propose(t, w.request(amount))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := safe.Sign(common.HexToHash(pay.SafeTxHash), w.owner)
	if err != nil {
		t.Fatal(err)
	}
	read, err := w.svc.ReadSignature(context.Background(), w.p, pay.ID, sig.Hex())
	if err != nil {
		t.Fatal(err)
	}
	if pay, err = w.svc.Sign(context.Background(), w.p, read); err != nil || pay.Status != safepay.StatusReadyToExecute {
		t.Fatalf("sign: %+v %v", pay, err)
	}
	return pay
}

// held is the wallet's open payment holds and its mirror's pending debits.
func (w *holdWorld) held(t *testing.T) (holds []ports.PaymentHold, pending int64) {
	t.Helper()
	err := w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		if holds, err = tx.PaymentHolds().LockWalletPaymentHolds(ctx, w.p.TenantID, w.wallet.ID, 10); err != nil {
			return err
		}
		acc, err := tx.Ledger().FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, w.p.TenantID, ledger.WalletOnchainRef(w.wallet.ID))
		if err != nil {
			return err
		}
		b, err := tx.Ledger().Balances(ctx, []string{acc.ID})
		pending = b[acc.ID].PendingDebits
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return holds, pending
}

func (w *holdWorld) run(t *testing.T, pay safepay.Payment) (time.Duration, safepay.Payment) {
	t.Helper()
	snooze, err := w.svc.RunExecution(context.Background(), w.p.TenantID, pay.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := w.store.Payment(pay.ID)
	return snooze, got
}

func TestSafepay_PaymentHold(t *testing.T) {
	t.Run("a payment sent holds its USDC on the mirror until the mirror books it", func(t *testing.T) {
		w := newHoldWorld(t, 10_000_000, 10_000_000)
		pay := w.signed(t, "8")
		if snooze, got := w.run(t, pay); snooze != 0 || got.Status != safepay.StatusCompleted {
			t.Fatalf("execution: %s %+v", snooze, got)
		}
		holds, pending := w.held(t)
		if len(holds) != 1 || holds[0].PaymentID != pay.ID || holds[0].AmountBaseUnits != 8_000_000 || holds[0].SafeNonce != pay.SafeNonce ||
			holds[0].Recipient != common.HexToAddress(pay.DestinationAddress).Hex() || pending != 8_000_000 {
			t.Fatalf("holds %+v, pending %d", holds, pending)
		}
	})
	t.Run("a send that reverts releases the hold", func(t *testing.T) {
		// The mirror still counts 10 the Safe no longer has: the hold is placed, the chain refuses.
		w := newHoldWorld(t, 5_000_000, 10_000_000)
		_, got := w.run(t, w.signed(t, "8"))
		if got.Status != safepay.StatusFailed || !strings.HasPrefix(got.FailureReason, "GS013") {
			t.Fatalf("payment %+v", got)
		}
		if holds, pending := w.held(t); len(holds) != 0 || pending != 0 {
			t.Fatalf("after the failure: holds %+v, pending %d", holds, pending)
		}
	})
	t.Run("a mirror behind the chain makes the job wait, then fail after paymentMirrorWait", func(t *testing.T) {
		w := newHoldWorld(t, 10_000_000, 0)
		pay := w.signed(t, "8")
		snooze, got := w.run(t, pay)
		if snooze != paymentMirrorPoll || got.Status != safepay.StatusExecuting || got.ExecutedTxHash != "" {
			t.Fatalf("with the mirror behind: %s %+v", snooze, got)
		}
		w.mirror(t, 3_000_000) // still short
		w.clock.Advance(paymentMirrorWait)
		if _, got = w.run(t, pay); got.Status != safepay.StatusFailed || !strings.Contains(got.FailureReason, "INSUFFICIENT_FUNDS: the ledger's mirror of the Safe has not booked") {
			t.Fatalf("after the wait: %+v", got)
		}
		if nonce, _ := w.chain.SafeNonce(context.Background(), common.HexToAddress(w.wallet.Address)); nonce != 0 {
			t.Fatalf("a payment failed unsent moved the Safe's nonce to %d", nonce)
		}
	})
	t.Run("a mirror that catches up lets the waiting payment go", func(t *testing.T) {
		w := newHoldWorld(t, 10_000_000, 0)
		pay := w.signed(t, "8")
		if snooze, _ := w.run(t, pay); snooze != paymentMirrorPoll {
			t.Fatalf("snooze %s", snooze)
		}
		w.mirror(t, 10_000_000)
		if snooze, got := w.run(t, pay); snooze != 0 || got.Status != safepay.StatusCompleted {
			t.Fatalf("after the mirror caught up: %s %+v", snooze, got)
		}
	})
	t.Run("a Safe that cannot pay is left to the chain, as before", func(t *testing.T) {
		w := newHoldWorld(t, 5_000_000, 5_000_000)
		_, got := w.run(t, w.signed(t, "8"))
		if got.Status != safepay.StatusFailed || !strings.HasPrefix(got.FailureReason, "GS013") {
			t.Fatalf("payment %+v", got)
		}
		if holds, pending := w.held(t); len(holds) != 0 || pending != 0 {
			t.Fatalf("holds %+v, pending %d", holds, pending)
		}
	})
}
