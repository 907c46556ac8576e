package invoices

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/corridorhq/corridor/test/harness"
)

// authorization is what a sender signs, built here as a wallet library would build it.
type authorization struct {
	domainChainID int64
	contract      common.Address
	payer, payee  common.Address
	amount        int64 // USDC base units
	nonce         string
	expiresAt     time.Time
	docHash       common.Hash
}

func (a authorization) sign(t *testing.T, k key) string {
	t.Helper()
	chain := math.HexOrDecimal256(*big.NewInt(a.domainChainID))
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"InvoiceAuthorization": {{Name: "payer", Type: "address"}, {Name: "payee", Type: "address"}, {Name: "amount", Type: "uint256"},
				{Name: "nonce", Type: "uint256"}, {Name: "expiresAt", Type: "uint256"}, {Name: "docHash", Type: "bytes32"}},
		},
		PrimaryType: "InvoiceAuthorization",
		Domain:      apitypes.TypedDataDomain{Name: "Corridor", Version: "1", ChainId: &chain, VerifyingContract: a.contract.Hex()},
		Message: apitypes.TypedDataMessage{"payer": a.payer.Hex(), "payee": a.payee.Hex(), "amount": fmt.Sprint(a.amount),
			"nonce": a.nonce, "expiresAt": fmt.Sprint(a.expiresAt.Unix()), "docHash": hexutil.Encode(a.docHash[:])},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, k.priv)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return hexutil.Encode(sig)
}

// billWorld is a sender tenant with an ACTIVE member whose signer key signs bills, and a payer
// tenant with a DEPLOYED wallet.
type billWorld struct {
	sender, payer *harness.Tenant
	signer        key
	payerWallet   map[string]any
}

func newBillWorld(t *testing.T) billWorld {
	t.Helper()
	w := billWorld{sender: env().NewTenant(t), payer: env().NewTenant(t), signer: newKey(t)}
	token := w.sender.Session.Post("/v1/tenants/members", map[string]any{"email": "biller@example.com"}).Expect(t, 201).JSON(t)["inviteToken"].(string)
	env().AcceptInvite(t, "biller@example.com", token, map[string]any{"signerAddress": w.signer.address.Hex()}).Expect(t, 200)
	w.payerWallet = deployedWallet(t, w.payer)
	return w
}

// deployedWallet is a new DEPLOYED wallet of the tenant, to receive bills at its address.
func deployedWallet(t *testing.T, ten *harness.Tenant) map[string]any {
	t.Helper()
	id := ten.Root.Post("/v1/wallets", map[string]any{"name": "payables",
		"owners": []map[string]any{{"address": newKey(t).address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)["id"].(string)
	return harness.Poll(t, "the payer wallet deploys", func() map[string]any { return ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" })
}

// TestBills_NonceIsTheSignersAcrossPayers: a signer's nonce is single-use whichever tenant the
// bill is sent to: signed again for a second payer tenant's address, it is FAILED
// NONCE_REPLAYED. Each bill is its own payer's: the second is inbound at the second payer only.
func TestBills_NonceIsTheSignersAcrossPayers(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "11")
	first := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))
	expectVerification(t, first, "VERIFIED", nil)
	second := env().NewTenant(t)
	b := a
	b.payer = common.HexToAddress(deployedWallet(t, second)["address"].(string))
	replay := w.send(t, w.body(b, w.signer, b.sign(t, w.signer)))
	expectVerification(t, replay, "FAILED", "NONCE_REPLAYED")
	if replay["payerTenantId"] != second.ID {
		t.Fatalf("the replay's payer: %v, want %s", replay["payerTenantId"], second.ID)
	}
	got := second.Root.Get("/v1/bills/inbound/"+replay["invoiceId"].(string)).Expect(t, 200).JSON(t)
	expectVerification(t, got, "FAILED", "NONCE_REPLAYED")
	w.payer.Root.Get("/v1/bills/inbound/"+replay["invoiceId"].(string)).ExpectError(t, 404, "BILL_NOT_FOUND")
	second.Root.Get("/v1/bills/inbound/"+first["invoiceId"].(string)).ExpectError(t, 404, "BILL_NOT_FOUND")
}

func (w billWorld) auth(payee key, nonce string) authorization {
	return authorization{domainChainID: 84532, payer: common.HexToAddress(w.payerWallet["address"].(string)), payee: payee.address,
		amount: 12_500_000, nonce: nonce, expiresAt: time.Now().Add(time.Hour).Truncate(time.Second), docHash: sha256.Sum256([]byte("terms v1"))}
}

func (w billWorld) body(a authorization, sender key, signature string) map[string]any {
	return map[string]any{"toAddress": a.payer.Hex(), "amountUsd": "12.5", "payeeAddress": a.payee.Hex(), "senderAddress": sender.address.Hex(),
		"signature": signature, "sigNonce": a.nonce, "sigExpiresAt": a.expiresAt.UTC().Format(time.RFC3339),
		"sigDocHash": hexutil.Encode(a.docHash[:]), "payeeName": "Acme", "description": "March"}
}

func (w billWorld) send(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	return w.sender.Root.Post("/v1/bills", body).Expect(t, 201).JSON(t)
}

func expectVerification(t *testing.T, b map[string]any, status string, reason any) {
	t.Helper()
	if b["verificationStatus"] != status || b["verificationReason"] != reason {
		t.Fatalf("bill %v, want %s %v", b, status, reason)
	}
}

func TestBills_VerifyReplayAndAccept(t *testing.T) {
	w := newBillWorld(t)
	payee := newKey(t)
	a := w.auth(payee, "7")
	bill := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))
	expectVerification(t, bill, "VERIFIED", nil)
	if bill["payerTenantId"] == bill["senderTenantId"] || bill["amountUsd"] != "12.5" || bill["payerDecision"] != nil {
		t.Fatalf("bill: %v", bill)
	}
	id := bill["invoiceId"].(string)

	// The payer sees it; the sender does not (it is not inbound there).
	got := w.payer.Root.Get("/v1/bills/inbound/"+id).Expect(t, 200).JSON(t)
	expectVerification(t, got, "VERIFIED", nil)
	w.sender.Root.Get("/v1/bills/inbound/"+id).ExpectError(t, 404, "BILL_NOT_FOUND")

	// The same nonce again: FAILED, never VERIFIED twice.
	replay := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))
	expectVerification(t, replay, "FAILED", "NONCE_REPLAYED")

	verified := w.payer.Root.Get("/v1/bills/inbound?verification=VERIFIED").Expect(t, 200).JSON(t)
	failed := w.payer.Root.Get("/v1/bills/inbound?verification=failed").Expect(t, 200).JSON(t)
	all := w.payer.Root.Get("/v1/bills/inbound").Expect(t, 200).JSON(t)
	if verified["total"] != float64(1) || failed["total"] != float64(1) || all["total"] != float64(2) {
		t.Fatalf("lists: %v / %v / %v", verified["total"], failed["total"], all["total"])
	}
	w.payer.Root.Get("/v1/bills/inbound?verification=MAYBE").ExpectError(t, 400, "VALIDATION_FAILED")

	// Accepting proposes a payment from the payer's wallet to the payee; once only.
	w.payer.Root.Post("/v1/bills/inbound/"+replay["invoiceId"].(string)+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).
		ExpectError(t, 409, "INVALID_STATE")
	accepted := w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).Expect(t, 200).JSON(t)
	if accepted["payerDecision"] != "ACCEPTED" || accepted["payerPaymentId"] == nil {
		t.Fatalf("accepted: %v", accepted)
	}
	pay := w.payer.Root.Get("/v1/payments/"+accepted["payerPaymentId"].(string)).Expect(t, 200).JSON(t)
	if pay["amount"] != "12.5" || pay["sourceWalletId"] != w.payerWallet["id"] {
		t.Fatalf("payment: %v", pay)
	}
	w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).ExpectError(t, 409, "INVALID_STATE")
	w.sender.Root.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).ExpectError(t, 404, "BILL_NOT_FOUND")
}

// TestBills_ParallelReplaysVerifyOnce: one signed bill sent four times at once is VERIFIED once.
func TestBills_ParallelReplaysVerifyOnce(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "115792089237316195423570985008687907853269984665640564039457584007913129639935")
	body := w.body(a, w.signer, a.sign(t, w.signer))
	var wg sync.WaitGroup
	results := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = w.send(t, body)["verificationStatus"].(string)
		}()
	}
	wg.Wait()
	n := 0
	for _, r := range results {
		if r == "VERIFIED" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("verified %d times: %v", n, results)
	}
}

func TestBills_Failures(t *testing.T) {
	w := newBillWorld(t)
	payee, stranger := newKey(t), newKey(t)

	expired := w.auth(payee, "1")
	expired.expiresAt = time.Now().Add(-time.Minute).Truncate(time.Second)
	expectVerification(t, w.send(t, w.body(expired, w.signer, expired.sign(t, w.signer))), "FAILED", "SIGNATURE_EXPIRED")

	// Signed by a key that is not a member, which claims to be the sender.
	a := w.auth(payee, "2")
	expectVerification(t, w.send(t, w.body(a, stranger, a.sign(t, stranger))), "FAILED", "SIGNER_NOT_ACTIVE_MEMBER")
	// Signed by a stranger in the member's name.
	b := w.auth(payee, "3")
	expectVerification(t, w.send(t, w.body(b, w.signer, b.sign(t, stranger))), "FAILED", "SIGNER_MISMATCH")

	// Signed under another domain (chain 1) but sent for the default domain.
	d := w.auth(payee, "4")
	d.domainChainID = 1
	expectVerification(t, w.send(t, w.body(d, w.signer, d.sign(t, w.signer))), "FAILED", "SIGNER_MISMATCH")
	// The same signature with the domain it was made under verifies.
	body := w.body(d, w.signer, d.sign(t, w.signer))
	body["sigNonce"], body["domainChainId"] = "5", 1
	d.nonce = "5"
	body["signature"] = d.sign(t, w.signer)
	expectVerification(t, w.send(t, body), "VERIFIED", nil)
	// A verifying contract that was not signed over.
	v := w.auth(payee, "6")
	vb := w.body(v, w.signer, v.sign(t, w.signer))
	vb["domainVerifyingContract"] = newKey(t).address.Hex()
	expectVerification(t, w.send(t, vb), "FAILED", "SIGNER_MISMATCH")
	// A garbled signature.
	g := w.auth(payee, "8")
	expectVerification(t, w.send(t, w.body(g, w.signer, "0x"+fmt.Sprintf("%0130x", 1))), "FAILED", "SIGNATURE_INVALID")
}

func TestBills_Validation(t *testing.T) {
	w := newBillWorld(t)
	payee := newKey(t)
	a := w.auth(payee, "1")
	good := func() map[string]any { return w.body(a, w.signer, a.sign(t, w.signer)) }
	cases := []struct {
		name  string
		edit  func(map[string]any)
		field string
	}{
		{"no recipient", func(b map[string]any) { delete(b, "toAddress") }, "toHandle"},
		{"both recipients", func(b map[string]any) { b["toHandle"] = "acme" }, "toAddress"},
		{"not a wallet", func(b map[string]any) { b["toAddress"] = newKey(t).address.Hex() }, "toAddress"},
		{"own wallet", nil, "toAddress"},
		{"zero amount", func(b map[string]any) { b["amountUsd"] = "0" }, "amountUsd"},
		{"amount with spaces", func(b map[string]any) { b["amountUsd"] = " 1 " }, "amountUsd"},
		{"bad nonce", func(b map[string]any) { b["sigNonce"] = "0x10" }, "sigNonce"},
		{"missing signature", func(b map[string]any) { delete(b, "signature") }, "signature"},
		{"missing expiry", func(b map[string]any) { delete(b, "sigExpiresAt") }, "sigExpiresAt"},
		{"bad doc hash", func(b map[string]any) { b["sigDocHash"] = "0x1234" }, "sigDocHash"},
	}
	own := w.sender.Root.Post("/v1/wallets", map[string]any{"name": "own",
		"owners": []map[string]any{{"address": newKey(t).address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)["address"]
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := good()
			if c.edit == nil {
				b["toAddress"] = own
			} else {
				c.edit(b)
			}
			e := w.sender.Root.Post("/v1/bills", b).ExpectError(t, 400, "VALIDATION_FAILED")
			if got := fields(e); !strings.Contains(got, c.field) {
				t.Fatalf("fields %s, want %s", got, c.field)
			}
		})
	}
	if n := w.payer.Root.Get("/v1/bills/inbound").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("refused bills recorded: %v", n)
	}
}

// TestBills_ToHandle: a bill addressed by the payer's directory handle goes to the tenant of the
// handle's wallet, whose address is the signed payer.
func TestBills_ToHandle(t *testing.T) {
	w := newBillWorld(t)
	handle := fmt.Sprintf("payer-%d", time.Now().UnixNano()%1_000_000_000)
	w.payer.Root.Do("PUT", "/v1/directory/handle", map[string]any{"handle": handle, "walletId": w.payerWallet["id"]}).Expect(t, 200)
	a := w.auth(newKey(t), "11")
	body := w.body(a, w.signer, a.sign(t, w.signer))
	delete(body, "toAddress")
	body["toHandle"] = "@" + strings.ToUpper(handle)
	bill := w.send(t, body)
	expectVerification(t, bill, "VERIFIED", nil)
	if bill["payerAddress"] != w.payerWallet["address"] {
		t.Fatalf("payer %v, want the handle's wallet %v", bill["payerAddress"], w.payerWallet["address"])
	}
	w.payer.Root.Get("/v1/bills/inbound/"+bill["invoiceId"].(string)).Expect(t, 200)
	body["toHandle"], body["sigNonce"] = "nobody-"+handle, "12"
	w.sender.Root.Post("/v1/bills", body).ExpectError(t, 404, "HANDLE_NOT_FOUND")
}

// TestBills_ParallelAcceptsProposeOnce: four acceptances at once propose one payment.
func TestBills_ParallelAcceptsProposeOnce(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "21")
	id := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))["invoiceId"].(string)
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = w.payer.Root.With("Idempotency-Key", fmt.Sprintf("accept-%d", i)).
				Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case 200:
			ok++
		case 409:
		default:
			t.Fatalf("statuses %v", statuses)
		}
	}
	if ok != 1 {
		t.Fatalf("%d acceptances, want 1: %v", ok, statuses)
	}
	if n := w.payer.Root.Get("/v1/payments").Expect(t, 200).JSON(t)["total"]; n != float64(1) {
		t.Fatalf("%v payments proposed, want 1", n)
	}
}

// TestBills_AcceptAgainOnceItsPaymentIsCancelled: an acceptance whose payment is cancelled (or
// fails) moved no money, so the payer may accept the bill again, from the same or another
// wallet: a new payment is proposed and linked. While a linked payment can still move money a
// second acceptance is refused. The bill used to stay ACCEPTED with the cancelled payment, and
// could never be paid through Corridor again.
func TestBills_AcceptAgainOnceItsPaymentIsCancelled(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "31")
	id := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))["invoiceId"].(string)
	accept := func() *harness.Response {
		return w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]})
	}
	first := accept().Expect(t, 200).JSON(t)["payerPaymentId"].(string)
	accept().ExpectError(t, 409, "INVALID_STATE")
	w.payer.Root.Post("/v1/payments/"+first+"/cancel", map[string]any{}).Expect(t, 200)

	again := accept().Expect(t, 200).JSON(t)
	second, _ := again["payerPaymentId"].(string)
	if again["payerDecision"] != "ACCEPTED" || second == "" || second == first {
		t.Fatalf("accepted again: %v (first payment %s)", again, first)
	}
	pay := w.payer.Root.Get("/v1/payments/"+second).Expect(t, 200).JSON(t)
	if pay["status"] != "AWAITING_SIGNATURE" || pay["amount"] != "12.5" {
		t.Fatalf("the new payment: %v", pay)
	}
	accept().ExpectError(t, 409, "INVALID_STATE")
	if got := w.payer.Root.Get("/v1/bills/inbound/"+id).Expect(t, 200).JSON(t); got["payerPaymentId"] != second {
		t.Fatalf("the bill links %v, want %s", got["payerPaymentId"], second)
	}
}

// TestBills_AgentKeyCannotAcceptFromATenantWallet: accepting a bill proposes a Safe payment from
// the wallet named; an agent key may only pay from its own agent's wallet, so accepting with the
// tenant's wallet is refused AGENT_WALLET_ONLY and the bill stays undecided (docs/decisions/tenancy.md).
func TestBills_AgentKeyCannotAcceptFromATenantWallet(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "41")
	id := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))["invoiceId"].(string)
	agentID := w.payer.Root.Post("/v1/agents", map[string]any{"name": "bot"}).Expect(t, 201).JSON(t)["id"].(string)
	key := w.payer.Root.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "bot", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)["key"].(string)
	bot := env().Client(t).WithKey(key)
	m := bot.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if d, _ := m["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("refusal details %v", m["details"])
	}
	if got := w.payer.Root.Get("/v1/bills/inbound/"+id).Expect(t, 200).JSON(t); got["payerDecision"] != nil || got["payerPaymentId"] != nil {
		t.Fatalf("a refused accept decided the bill: %v", got)
	}
	w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", map[string]any{"walletId": w.payerWallet["id"]}).Expect(t, 200)
}

// TestBills_AcceptTwoFactorHandshake: accepting a bill proposes a payment the payer's settings
// protect: TWOFA_REQUIRED with a challenge that survives the refused acceptance, then the same
// acceptance with twofaChallengeId decides the bill.
func TestBills_AcceptTwoFactorHandshake(t *testing.T) {
	w := newBillWorld(t)
	a := w.auth(newKey(t), "42")
	id := w.send(t, w.body(a, w.signer, a.sign(t, w.signer)))["invoiceId"].(string)
	w.payer.Root.Do("PUT", "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "1"}).Expect(t, 200)
	f := w.payer.Root.Post("/v1/twofactor/factors", map[string]any{"label": "ops"}).Expect(t, 201).JSON(t)
	secret := f["secret"].(string)
	w.payer.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)

	body := map[string]any{"walletId": w.payerWallet["id"]}
	refused := w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", body).ExpectError(t, 403, "TWOFA_REQUIRED")
	chID := refused["details"].(map[string]any)["challengeId"].(string)
	if got := w.payer.Root.Get("/v1/bills/inbound/" + id).JSON(t); got["payerDecision"] != nil {
		t.Fatalf("a refused acceptance decided the bill: %v", got)
	}
	w.payer.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)
	body["twofaChallengeId"] = chID
	accepted := w.payer.Root.Post("/v1/bills/inbound/"+id+"/accept", body).Expect(t, 200).JSON(t)
	if accepted["payerDecision"] != "ACCEPTED" || accepted["payerPaymentId"] == nil {
		t.Fatalf("accepted: %v", accepted)
	}
}
