package checkouts

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// The refund job's rows, each against a scripted chain: what it sends, what it records, what
// it answers. The crash windows (paid on chain, hash not stored; a second send refused or
// reverted because the first paid) never send a second payment.
func TestSendRefund_Rows(t *testing.T) {
	const (
		dest   = "0x00000000000000000000000000000000000000d1"
		amount = int64(4_000_000)
	)
	sent := common.HexToHash("0x01")
	other := common.HexToHash("0x02")
	refundedRevert := &ports.RevertError{Reason: "CDF:refunded"}
	paid := ports.CheckoutRefundRecord{To: common.HexToAddress(dest), AmountBaseUnits: big.NewInt(amount)}
	unpaid := ports.CheckoutRefundRecord{AmountBaseUnits: new(big.Int)}
	rows := []struct {
		name       string
		storedHash string
		chain      fakeDeposits
		wantErr    string // "" none, "snooze", or any other: an error
		wantSends  int
		wantStatus checkout.RefundStatus
		wantHash   string
	}{
		{name: "fresh: sends once, processed with its hash",
			chain:     fakeDeposits{record: unpaid, sendHash: sent, receipts: map[common.Hash]ports.TxStatus{sent: ports.TxSucceeded}},
			wantSends: 1, wantStatus: checkout.RefundProcessed, wantHash: sent.Hex()},
		{name: "paid before a crash, hash not stored: adopted from the log, nothing paid",
			chain:      fakeDeposits{record: paid, sendHash: common.Hash{}, logHash: other, logFound: true},
			wantStatus: checkout.RefundProcessed, wantHash: other.Hex()},
		{name: "paid, its log out of reach: processed without a hash",
			chain:      fakeDeposits{record: paid},
			wantStatus: checkout.RefundProcessed, wantHash: ""},
		{name: "the send refused because a pending transaction pays the key: waits",
			chain:   fakeDeposits{record: unpaid, sendErr: refundedRevert},
			wantErr: "snooze", wantStatus: checkout.RefundPending, wantHash: ""},
		{name: "stored send reverted because another paid the key: adopted",
			storedHash: sent.Hex(),
			chain:      fakeDeposits{record: paid, logHash: other, logFound: true, receipts: map[common.Hash]ports.TxStatus{sent: ports.TxFailed}},
			wantStatus: checkout.RefundProcessed, wantHash: other.Hex()},
		{name: "stored send reverted, key unpaid (account short): hash cleared to send again",
			storedHash: sent.Hex(),
			chain:      fakeDeposits{record: unpaid, receipts: map[common.Hash]ports.TxStatus{sent: ports.TxFailed}},
			wantErr:    "reverted", wantStatus: checkout.RefundPending, wantHash: ""},
		{name: "stored send pending: waits",
			storedHash: sent.Hex(),
			chain:      fakeDeposits{record: unpaid, receipts: map[common.Hash]ports.TxStatus{sent: ports.TxPending}},
			wantErr:    "snooze", wantStatus: checkout.RefundPending, wantHash: sent.Hex()},
		{name: "key paid to another amount: an error, never adopted",
			chain: fakeDeposits{record: ports.CheckoutRefundRecord{To: common.HexToAddress(dest), AmountBaseUnits: big.NewInt(1)},
				sendErr: refundedRevert},
			wantErr: "not 4000000", wantStatus: checkout.RefundPending, wantHash: ""},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			store := fake.NewStore()
			chk := checkout.Checkout{ID: core.NewID(checkout.PrefixCheckout), TenantID: "ten_1", Environment: core.EnvTest, ChainID: 84532,
				Amount: amount, Currency: "USD", Cryptocurrency: "USDC", DepositAddress: dest, StartBlock: 7, Status: checkout.StatusCompleted,
				Received: amount, Credited: amount}
			refund := checkout.Refund{ID: core.NewID(checkout.PrefixRefund), CheckoutID: chk.ID, TenantID: "ten_1", Environment: core.EnvTest,
				Amount: amount, Destination: dest, Status: checkout.RefundPending, TxHash: row.storedHash}
			if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if err := tx.Checkouts().CreateCheckout(ctx, chk); err != nil {
					return err
				}
				return tx.Checkouts().CreateRefund(ctx, refund)
			}); err != nil {
				t.Fatal(err)
			}
			chain := row.chain
			s, err := New(Deps{Store: store, Jobs: fake.Jobs{Store: store}, Chains: map[core.Environment]ports.Chain{core.EnvTest: &chain}, Policy: noPolicy{}})
			if err != nil {
				t.Fatal(err)
			}
			err = s.SendRefund(context.Background(), chk.ID, refund.ID)
			var snooze *river.JobSnoozeError
			switch {
			case row.wantErr == "" && err != nil:
				t.Fatalf("SendRefund: %v", err)
			case row.wantErr == "snooze" && !errors.As(err, &snooze):
				t.Fatalf("SendRefund: %v, want a snooze", err)
			case row.wantErr != "" && row.wantErr != "snooze" && (err == nil || !strings.Contains(err.Error(), row.wantErr)):
				t.Fatalf("SendRefund: %v, want an error with %q", err, row.wantErr)
			}
			if chain.sends != row.wantSends {
				t.Fatalf("%d sends, want %d", chain.sends, row.wantSends)
			}
			stored := store.CheckoutRefunds(chk.ID)
			if len(stored) != 1 || stored[0].Status != row.wantStatus || stored[0].TxHash != row.wantHash {
				t.Fatalf("refunds %+v, want one %s %q", stored, row.wantStatus, row.wantHash)
			}
			if wantEvents := map[bool]int{true: 1, false: 0}[row.wantStatus == checkout.RefundProcessed]; len(store.Events(refund.ID)) != wantEvents {
				t.Fatalf("refund events %+v, want %d", store.Events(refund.ID), wantEvents)
			}
		})
	}
}

// fakeDeposits scripts the chain: the factory's record, what a send answers, the log lookup
// and receipts.
type fakeDeposits struct {
	ports.Chain
	record   ports.CheckoutRefundRecord
	sendHash common.Hash
	sendErr  error
	logHash  common.Hash
	logFound bool
	receipts map[common.Hash]ports.TxStatus
	sends    int
}

func (f *fakeDeposits) CheckoutFactoryAddress() common.Address {
	return common.HexToAddress("0x00000000000000000000000000000000000000fa")
}

func (f *fakeDeposits) CheckoutDepositAddress([32]byte) (common.Address, error) {
	return common.Address{}, nil
}

func (f *fakeDeposits) SweepCheckoutDeposit(context.Context, [32]byte, int64) (common.Hash, error) {
	return common.Hash{}, errors.New("not in this test")
}

func (f *fakeDeposits) RefundCheckout(context.Context, [32]byte, common.Address, *big.Int) (common.Hash, error) {
	if f.sendErr != nil {
		return common.Hash{}, f.sendErr
	}
	if f.sendHash != (common.Hash{}) {
		f.sends++
	}
	return f.sendHash, nil
}

func (f *fakeDeposits) SandboxPayCheckoutDeposit(context.Context, common.Address, *big.Int) (common.Hash, common.Address, error) {
	return common.Hash{}, common.Address{}, errors.New("not in this test")
}

func (f *fakeDeposits) CheckoutRefundOf(context.Context, [32]byte) (ports.CheckoutRefundRecord, error) {
	return f.record, nil
}

func (f *fakeDeposits) CheckoutRefundTx(context.Context, [32]byte, uint64) (common.Hash, bool, error) {
	return f.logHash, f.logFound, nil
}

func (f *fakeDeposits) Receipt(_ context.Context, hash common.Hash) (ports.Receipt, error) {
	status, ok := f.receipts[hash]
	if !ok {
		return ports.Receipt{}, errors.New("unknown transaction")
	}
	return ports.Receipt{Status: status}, nil
}

// noPolicy is a service balance with no spend policy attached.
type noPolicy struct{}

func (noPolicy) GateBalanceSpend(context.Context, auth.Principal, string, int64, string) (*core.Error, error) {
	return nil, nil
}
