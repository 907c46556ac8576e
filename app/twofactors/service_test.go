package twofactors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

type movedClock struct{ now time.Time }

func (c *movedClock) Now() time.Time { return c.now }

// TestGate_CoolingOffWithMovedClock: a contact saved at t0 is refused PAYEE_COOLING_OFF with
// the time left until t0 + window, up to the last microsecond, and passes from t0 + window on.
func TestGate_CoolingOffWithMovedClock(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const addr = "0x00000000000000000000000000000000000000Cc"
	store := fake.NewStore()
	err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.TwoFactor().CreateContact(ctx, twofactor.Contact{ID: "con_1", TenantID: "ten_1", Environment: core.EnvTest,
			Address: addr, Label: "Supplier", CreatedAt: t0}); err != nil {
			return err
		}
		return tx.TwoFactor().SaveSettings(ctx, twofactor.Settings{TenantID: "ten_1", Environment: core.EnvTest, RequireSavedPayees: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	clock := &movedClock{now: t0}
	svc, err := New(Deps{Store: store, Cipher: fake.Cipher{}, Clock: clock, CoolingOff: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	pay := safepay.Payment{ID: "pay_1", DestinationType: safepay.DestinationAddress, DestinationAddress: addr, AmountBaseUnits: 1_000_000}
	for _, step := range []struct {
		at      time.Duration
		refused bool
		seconds int64
	}{
		{0, true, 7200},
		{90 * time.Minute, true, 1800},
		{2*time.Hour - time.Microsecond, true, 1},
		{2 * time.Hour, false, 0},
		{72 * time.Hour, false, 0},
	} {
		clock.now = t0.Add(step.at)
		refused, err := svc.GateSafePayment(context.Background(), p, pay, "")
		if err != nil {
			t.Fatal(err)
		}
		if !step.refused {
			if refused != nil {
				t.Fatalf("at +%s: refused %v", step.at, refused)
			}
			continue
		}
		if refused == nil || refused.Code != twofactor.CodePayeeCoolingOff {
			t.Fatalf("at +%s: %v, want PAYEE_COOLING_OFF", step.at, refused)
		}
		if refused.Details["secondsRemaining"] != step.seconds || refused.Details["availableAt"] != "2026-03-01T14:00:00Z" {
			t.Fatalf("at +%s: details %v", step.at, refused.Details)
		}
	}
	// Another address is not saved: NEW_PAYEE_NOT_SAVED, whatever the time.
	pay.DestinationAddress = "0x00000000000000000000000000000000000000Dd"
	if refused, err := svc.GateSafePayment(context.Background(), p, pay, ""); err != nil || refused == nil || refused.Code != twofactor.CodeNewPayeeNotSaved {
		t.Fatalf("unsaved payee: %v %v", refused, err)
	}
}

func TestBind_EveryFieldCounts(t *testing.T) {
	base := twofactor.Transaction{TenantID: "ten_1", Environment: core.EnvTest, SourceWalletID: "wal_1",
		DestinationAddress: "0x00000000000000000000000000000000000000Cc", ChainID: 84532, Asset: "usdc", AmountBaseUnits: 5, Memo: "m"}
	same := base
	same.DestinationAddress = strings.ToLower(base.DestinationAddress)
	if twofactor.Bind(base) != twofactor.Bind(same) {
		t.Fatal("the address's case changed the binding")
	}
	for name, mutate := range map[string]func(*twofactor.Transaction){
		"tenant": func(x *twofactor.Transaction) { x.TenantID = "ten_2" }, "env": func(x *twofactor.Transaction) { x.Environment = core.EnvLive },
		"wallet": func(x *twofactor.Transaction) { x.SourceWalletID = "wal_2" }, "chain": func(x *twofactor.Transaction) { x.ChainID = 1 },
		"dest":  func(x *twofactor.Transaction) { x.DestinationAddress = "0x00000000000000000000000000000000000000Dd" },
		"asset": func(x *twofactor.Transaction) { x.Asset = "eth" }, "amount": func(x *twofactor.Transaction) { x.AmountBaseUnits = 6 },
		"memo": func(x *twofactor.Transaction) { x.Memo = "n" }, "memo split": func(x *twofactor.Transaction) { x.Asset, x.Memo = "usdc5", "" },
	} {
		x := base
		mutate(&x)
		if twofactor.Bind(x) == twofactor.Bind(base) {
			t.Errorf("%s does not change the binding", name)
		}
	}
}
