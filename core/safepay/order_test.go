package safepay

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
)

func i64p(v int64) *int64 { return &v }

func fields(t *testing.T, err error) map[string]any {
	t.Helper()
	var de *core.Error
	if !errors.As(err, &de) || de.Code != core.CodeValidationFailed {
		t.Fatalf("want VALIDATION_FAILED, got %v", err)
	}
	f, _ := de.Details["fields"].(map[string]any)
	return f
}

func TestParseOrder(t *testing.T) {
	addr := "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	valid := func() Request {
		return Request{SourceWalletID: "wal_1", Destination: &DestinationInput{Type: "address", Address: addr, ChainID: i64p(84532)}, AmountValue: "12.5"}
	}
	order, err := ParseOrder(valid())
	if err != nil || order.AmountBaseUnits != 12_500_000 || order.Asset != AssetUSDC || order.Destination.Address != addr || order.Destination.ChainID != 84532 {
		t.Fatalf("valid order: %+v %v", order, err)
	}
	cases := []struct {
		name  string
		edit  func(*Request)
		field string
	}{
		{"zero amount", func(r *Request) { r.AmountValue = "0" }, "amount.value"},
		{"negative amount", func(r *Request) { r.AmountValue = "-1" }, "amount.value"},
		{"seven decimals", func(r *Request) { r.AmountValue = "1.0000001" }, "amount.value"},
		{"not a number", func(r *Request) { r.AmountValue = "ten" }, "amount.value"},
		{"exponent", func(r *Request) { r.AmountValue = "1e3" }, "amount.value"},
		{"surrounding spaces", func(r *Request) { r.AmountValue = " 5 " }, "amount.value"},
		{"seven decimals of zeros", func(r *Request) { r.AmountValue = "1.0000000" }, "amount.value"},
		{"missing amount", func(r *Request) { r.AmountValue = "" }, "amount.value"},
		{"other asset", func(r *Request) { r.AmountAsset = "eth" }, "amount.asset"},
		{"missing wallet", func(r *Request) { r.SourceWalletID = " " }, "sourceWalletId"},
		{"missing destination", func(r *Request) { r.Destination = nil }, "destination"},
		{"unknown type", func(r *Request) { r.Destination.Type = "iban" }, "destination.type"},
		{"missing type", func(r *Request) { r.Destination.Type = "" }, "destination.type"},
		{"bad address", func(r *Request) { r.Destination.Address = "0x1234" }, "destination.address"},
		{"zero address", func(r *Request) { r.Destination.Address = "0x0000000000000000000000000000000000000000" }, "destination.address"},
		{"missing chain", func(r *Request) { r.Destination.ChainID = nil }, "destination.chainId"},
		{"foreign member", func(r *Request) { r.Destination.WalletID = "wal_2" }, "destination.walletId"},
		{"empty handle", func(r *Request) { r.Destination = &DestinationInput{Type: "handle", Handle: "@"} }, "destination.handle"},
		{"malformed handle", func(r *Request) { r.Destination = &DestinationInput{Type: "handle", Handle: "a b"} }, "destination.handle"},
		{"bad email", func(r *Request) { r.Destination = &DestinationInput{Type: "email", Email: "nope"} }, "destination.email"},
		{"wallet without id", func(r *Request) { r.Destination = &DestinationInput{Type: "wallet"} }, "destination.walletId"},
		{"memo too long", func(r *Request) { r.Memo = strings.Repeat("é", MaxMemoLength+1) }, "memo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := valid()
			c.edit(&r)
			_, err := ParseOrder(r)
			if f := fields(t, err); f[c.field] == nil {
				t.Fatalf("want field %s, got %v", c.field, f)
			}
		})
	}
	handle, err := ParseOrder(Request{SourceWalletID: "w", Destination: &DestinationInput{Type: "HANDLE", Handle: " @Alice "}, AmountValue: "1", AmountAsset: "USDC"})
	if err != nil || handle.Destination.Handle != "alice" || handle.Destination.Type != DestinationHandle {
		t.Fatalf("handle: %+v %v", handle, err)
	}
}

func TestNextNonceAndQueue(t *testing.T) {
	cases := []struct {
		chain, highest uint64
		inUse          bool
		want           uint64
	}{
		{0, 0, false, 0},
		{5, 0, false, 5},
		{5, 5, true, 6},
		{5, 9, true, 10},
		{7, 5, true, 7}, // the Safe moved past our payments (executed elsewhere)
	}
	for _, c := range cases {
		if got := NextNonce(c.chain, c.highest, c.inUse); got != c.want {
			t.Errorf("NextNonce(%d, %d, %v) = %d, want %d", c.chain, c.highest, c.inUse, got, c.want)
		}
	}
	if QueueFull(MaxQueued-1, 0) || !QueueFull(MaxQueued, 0) || !QueueFull(MaxQueued+3, 3) {
		t.Error("QueueFull bounds")
	}
}

func TestPropose_HashAndRebuild(t *testing.T) {
	token := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	safeAddr := "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
	dest := "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	now := time.Now()
	order := Order{Destination: Destination{Type: DestinationAddress, Address: dest, ChainID: 84532}, Asset: AssetUSDC, AmountBaseUnits: 12_500_000}
	in := Proposal{ID: "pay_1", SafeAddress: safeAddr, ChainID: 84532, Token: token, Order: order,
		DestinationAddress: dest, DestinationChainID: 84532, Nonce: 7, Threshold: 2, Now: now}
	p, err := Propose(in)
	if err != nil || p.Status != StatusAwaitingSignature {
		t.Fatalf("propose: %v %+v", err, p)
	}
	tx, _ := safe.TokenTransfer(token, common.HexToAddress(dest), big.NewInt(12_500_000), 7)
	if want := safe.TransactionHash(84532, common.HexToAddress(safeAddr), tx).Hex(); p.SafeTxHash != want {
		t.Fatalf("safeTxHash %s, want %s", p.SafeTxHash, want)
	}
	if _, err := p.SafeTransaction(token); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	if _, err := p.SafeTransaction(common.HexToAddress("0x01")); err == nil {
		t.Fatal("rebuild with another token must not match the signed hash")
	}

	bad := in
	bad.DestinationChainID = 8453
	if f := fields(t, func() error { _, err := Propose(bad); return err }()); f["destination.chainId"] == nil {
		t.Fatalf("chain mismatch: %v", f)
	}
	self := in
	self.DestinationAddress = strings.ToLower(safeAddr)
	if f := fields(t, func() error { _, err := Propose(self); return err }()); f["destination"] == nil {
		t.Fatalf("self payment: %v", f)
	}
}

func TestPackedSignatures_SortedBySigner(t *testing.T) {
	hash := common.HexToHash("0xdfa6f0b6372cdb9e999c1b9b78ecc9c3d334b9ecabfc1cd4a6848d2d591e39f2")
	p := Payment{ID: "pay_1", Status: StatusAwaitingSignature, Threshold: 2, SafeTxHash: hash.Hex()}
	var signers []common.Address
	for _, n := range []byte{3, 1} {
		key, _ := crypto.ToECDSA(common.LeftPadBytes([]byte{n}, 32))
		sig, _ := safe.Sign(hash, key)
		signer := crypto.PubkeyToAddress(key.PublicKey)
		signers = append(signers, signer)
		var err error
		if p, err = p.AddSignature(Signature{Signer: signer.Hex(), Value: sig.Hex()}, time.Now(), false); err != nil {
			t.Fatal(err)
		}
	}
	packed, err := p.PackedSignatures()
	if err != nil || len(packed) != 2*safe.SignatureLength {
		t.Fatalf("packed: %d bytes, %v", len(packed), err)
	}
	first, _ := safe.Recover(hash, safe.Signature(packed[:65]))
	second, _ := safe.Recover(hash, safe.Signature(packed[65:]))
	if first.Cmp(second) >= 0 {
		t.Fatalf("signatures not sorted by signer: %s then %s", first, second)
	}
	if (first != signers[0] || second != signers[1]) && (first != signers[1] || second != signers[0]) {
		t.Fatalf("packed signers %s, %s; want the two signers %v", first, second, signers)
	}
	if _, err := (Payment{ID: "p", Threshold: 2, Signatures: p.Signatures[:1]}).PackedSignatures(); err == nil {
		t.Fatal("packing below the threshold must fail")
	}
}

func TestCancel_QueuedPaymentLeavesARejectionAtItsNonce(t *testing.T) {
	now := time.Now()
	safeAddr := "0x00000000000000000000000000000000000000aA"
	p := Payment{ID: "pay_1", Status: StatusReadyToExecute, SafeNonce: 3, SafeAddress: safeAddr, ChainID: 84532, Threshold: 2}
	later := []Payment{{ID: "pay_2", SafeNonce: 4, Status: StatusReadyToExecute}}
	got, rejection, err := p.Cancel(later, "pay_r", now)
	if err != nil || got.Status != StatusCancelled || rejection == nil {
		t.Fatalf("cancel with a later payment: %v %s %v", err, got.Status, rejection)
	}
	r := *rejection
	if r.ID != "pay_r" || got.RejectionPaymentID != "pay_r" || r.RejectsPaymentID != "pay_1" {
		t.Fatalf("links: cancelled %q, rejection %q rejects %q", got.RejectionPaymentID, r.ID, r.RejectsPaymentID)
	}
	if r.SafeNonce != 3 || r.Status != StatusAwaitingSignature || r.Threshold != 2 || r.AmountBaseUnits != 0 ||
		r.Call == nil || r.Call.To != safeAddr || r.Call.ValueWei.Sign() != 0 || len(r.Call.Data) != 0 {
		t.Fatalf("rejection: %+v", r)
	}
	want := safe.TransactionHash(84532, common.HexToAddress(safeAddr),
		safe.Transaction{To: common.HexToAddress(safeAddr), Value: new(big.Int), Data: []byte{}, Operation: safe.Call, Nonce: 3})
	if r.SafeTxHash != want.Hex() {
		t.Fatalf("rejection safeTxHash %s, want %s", r.SafeTxHash, want.Hex())
	}
	if got, rejection, err := p.Cancel(nil, "pay_r", now); err != nil || got.Status != StatusCancelled || rejection != nil || got.RejectionPaymentID != "" {
		t.Fatalf("cancel newest: %v %s %v", err, got.Status, rejection)
	}
	for _, s := range []Status{StatusExecuting, StatusCompleted, StatusFailed, StatusCancelled} {
		if _, _, err := (Payment{Status: s}).Cancel(later, "pay_r", now); !errors.Is(err, core.ErrInvalidState) {
			t.Errorf("cancel from %s: %v", s, err)
		}
	}
	if !strings.HasPrefix(NonceGapReason(p), ReasonNonceGap+": ") || !strings.HasPrefix(NonceUsedReason(p), ReasonNonceUsed+": ") {
		t.Error("failure reasons start with their code")
	}
	if !p.WaitingFor(2) || p.WaitingFor(3) || p.WaitingFor(4) {
		t.Error("WaitingFor")
	}
}
