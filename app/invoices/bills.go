package invoices

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// BillInput is the body of POST /v1/bills.
type BillInput struct {
	ToHandle, ToAddress                    string
	AmountUsd, PayeeAddress, SenderAddress string
	Signature, SigNonce                    string
	SigExpiresAt                           *time.Time
	PayeeName, Description, SigDocHash     string
	ChainID, DomainChainID                 *int64
	DomainVerifyingContract                string
}

// billRequest is a validated bill before its recipient is resolved.
type billRequest struct {
	bill     invoice.Bill
	toHandle string
	nonce    *big.Int
	docHash  common.Hash
	contract common.Address
	sender   common.Address
}

// SendBill records a bill to another tenant and verifies it at once (docs/decisions/invoices.md): VERIFIED when the
// EIP-712 InvoiceAuthorization recovers to senderAddress, that address is the signerAddress of
// an ACTIVE member of the sending tenant, the signature has not expired and the signer has not
// used the nonce; otherwise FAILED with the reason. The nonce's single use is the store's
// unique index: of two replays racing, one is VERIFIED and the other FAILED NONCE_REPLAYED.
func (s *Service) SendBill(ctx context.Context, p auth.Principal, in BillInput) (invoice.Bill, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Bill{}, err
	}
	req, err := validateBill(p, in)
	if err != nil {
		return invoice.Bill{}, err
	}
	var out invoice.Bill
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		b := req.bill
		if err := s.resolvePayer(ctx, tx, p, &b, req.toHandle); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		b.ID, b.CreatedAt = core.NewID(invoice.PrefixBill), now
		typed := invoice.Authorization{DomainChainID: b.DomainChainID, VerifyingContract: req.contract,
			Payer: common.HexToAddress(b.PayerAddress), Payee: common.HexToAddress(b.PayeeAddress),
			Amount: big.NewInt(b.AmountBaseUnits), Nonce: req.nonce, ExpiresAt: big.NewInt(b.SigExpiresAt.Unix()), DocHash: req.docHash}
		recovered, err := invoice.Recover(typed.Digest(), b.Signature)
		if err != nil {
			b.VerificationStatus, b.FailureReason = invoice.Failed, invoice.ReasonBadSignature
		} else {
			active, err := tx.Invoices().ActiveSigner(ctx, p.TenantID, recovered.Hex())
			if err != nil {
				return err
			}
			b.VerificationStatus, b.FailureReason = invoice.Check(req.sender, recovered, active, b.SigExpiresAt, now)
		}
		err = tx.Invoices().CreateBill(ctx, b)
		if errors.Is(err, ports.ErrBillNonceUsed) {
			b.VerificationStatus, b.FailureReason = invoice.Failed, invoice.ReasonNonceReplayed
			err = tx.Invoices().CreateBill(ctx, b)
		}
		out = b
		return err
	})
	return out, err
}

// validateBill checks a bill request field by field and collects every problem, in the order
// the fields are read: the parties and amount, the signature, the texts, the signing domain.
func validateBill(p auth.Principal, in BillInput) (billRequest, error) {
	errs := core.FieldErrors{}
	r := billRequest{toHandle: strings.TrimSpace(in.ToHandle)}
	b := invoice.Bill{Environment: p.Environment, SenderTenantID: p.TenantID, PayeeName: strings.TrimSpace(in.PayeeName),
		Description: strings.TrimSpace(in.Description), Signature: strings.TrimSpace(in.Signature), VerificationStatus: invoice.Unverified}
	validateBillParties(errs, &r, &b, in)
	validateBillSignature(errs, &r, &b, in)
	validateBillText(errs, &b)
	validateBillDomain(errs, &r, &b, p.Environment, in)
	r.bill = b
	return r, errs.Err()
}

// validateBillParties checks who pays whom and how much: a handle or an address for the payer
// (one of them), the amount, the payee's and the sender's addresses.
func validateBillParties(errs core.FieldErrors, r *billRequest, b *invoice.Bill, in BillInput) {
	toAddress := strings.TrimSpace(in.ToAddress)
	switch {
	case r.toHandle == "" && toAddress == "":
		errs.Add("toHandle", "one of toHandle or toAddress is required")
	case r.toHandle != "" && toAddress != "":
		errs.Add("toAddress", "give toHandle or toAddress, not both")
	case toAddress != "":
		b.PayerAddress = addressField(errs, "toAddress", toAddress)
	}
	amount, err := core.ParseUSD("amountUsd", in.AmountUsd)
	switch {
	case err != nil:
		errs.Add("amountUsd", "must be a decimal string with at most 6 fraction digits")
	case amount <= 0:
		errs.Add("amountUsd", "must be greater than zero")
	}
	b.AmountBaseUnits = amount
	b.PayeeAddress = addressField(errs, "payeeAddress", in.PayeeAddress)
	b.SenderAddress = addressField(errs, "senderAddress", in.SenderAddress)
	r.sender = common.HexToAddress(b.SenderAddress)
}

// validateBillSignature checks the sender's signature, its nonce and its expiry.
func validateBillSignature(errs core.FieldErrors, r *billRequest, b *invoice.Bill, in BillInput) {
	if b.Signature == "" {
		errs.Add("signature", "is required")
	}
	if n, err := invoice.ParseNonce(in.SigNonce); err != nil {
		errs.Add("sigNonce", "must be a uint256 as a decimal string")
	} else {
		r.nonce, b.SigNonce = n, n.String()
	}
	if in.SigExpiresAt == nil {
		errs.Add("sigExpiresAt", "is required")
	} else {
		b.SigExpiresAt = in.SigExpiresAt.UTC().Truncate(time.Second)
		if in.SigExpiresAt.Unix() < 0 {
			errs.Add("sigExpiresAt", "must be after 1970")
		}
	}
}

// validateBillText bounds the payee's name and the description and refuses text a reader
// could be misled by (core.TextProblem).
func validateBillText(errs core.FieldErrors, b *invoice.Bill) {
	if len(b.PayeeName) > invoice.MaxPayeeNameBytes {
		errs.Add("payeeName", "must be at most 200 bytes")
	} else if why := core.TextProblem(b.PayeeName); why != "" {
		errs.Add("payeeName", why)
	}
	if len(b.Description) > invoice.MaxDescriptionBytes {
		errs.Add("description", "must be at most 2000 bytes")
	} else if why := core.TextProblem(b.Description); why != "" {
		errs.Add("description", why)
	}
}

// validateBillDomain checks the chain and the signing domain (chain, verifying contract,
// document hash); the chain defaults to the environment's.
func validateBillDomain(errs core.FieldErrors, r *billRequest, b *invoice.Bill, env core.Environment, in BillInput) {
	b.ChainID = wallet.DefaultChain(env)
	if in.ChainID != nil {
		if *in.ChainID <= 0 {
			errs.Add("chainId", "must be a positive chain id")
		}
		b.ChainID = *in.ChainID
	}
	b.DomainChainID = b.ChainID
	if in.DomainChainID != nil {
		if *in.DomainChainID <= 0 {
			errs.Add("domainChainId", "must be a positive chain id")
		}
		b.DomainChainID = *in.DomainChainID
	}
	if v := strings.TrimSpace(in.DomainVerifyingContract); v != "" {
		if !common.IsHexAddress(v) || !strings.HasPrefix(v, "0x") {
			errs.Add("domainVerifyingContract", "must be an EVM address")
		}
		r.contract = common.HexToAddress(v)
	}
	b.DomainVerifyingContract = r.contract.Hex()
	if v := strings.TrimSpace(in.SigDocHash); v != "" {
		raw := common.FromHex(v)
		if !strings.HasPrefix(v, "0x") || len(v) != 66 || len(raw) != 32 {
			errs.Add("sigDocHash", "must be a bytes32: 0x followed by 64 hex digits")
		}
		r.docHash = common.BytesToHash(raw)
	}
	b.DocHash = r.docHash.Hex()
}

func addressField(errs core.FieldErrors, field, s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		errs.Add(field, "is required")
		return ""
	}
	a, err := tenant.ValidateAddress(field, s)
	if err != nil {
		errs.Add(field, "must be an EVM address: 0x followed by 40 hex digits")
		return ""
	}
	return a
}

// resolvePayer finds the payer tenant: the tenant of the handle's wallet, or of the wallet at
// toAddress. A bill goes to another tenant.
func (s *Service) resolvePayer(ctx context.Context, tx txView, p auth.Principal, b *invoice.Bill, handle string) error {
	if handle != "" {
		name, err := wallet.ParseHandle(handle)
		if err != nil {
			return core.Invalid("toHandle", "is not a valid handle")
		}
		h, err := tx.Handles().FindHandle(ctx, p.Environment, name)
		if err != nil {
			return err
		}
		w, err := tx.Wallets().FindWallet(ctx, h.TenantID, p.Environment, h.WalletID)
		if err != nil {
			return err
		}
		b.PayerTenantID, b.PayerAddress = h.TenantID, w.Address
	} else {
		tenantID, err := tx.Invoices().WalletTenant(ctx, p.Environment, b.PayerAddress)
		if err != nil {
			if core.HasCode(err, core.CodeWalletNotFound) {
				return core.Invalid("toAddress", "is not the address of a wallet of any tenant")
			}
			return err
		}
		b.PayerTenantID = tenantID
	}
	if b.PayerTenantID == p.TenantID {
		return core.Invalid("toAddress", "names the sending tenant: a bill goes to another tenant")
	}
	return nil
}

// ListInbound is the bills sent to the caller's tenant, newest first, optionally filtered by
// verification status.
func (s *Service) ListInbound(ctx context.Context, p auth.Principal, verification string, page ports.Page) ([]invoice.Bill, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRead); err != nil {
		return nil, 0, err
	}
	status := invoice.Verification(strings.ToUpper(strings.TrimSpace(verification)))
	if status != "" && !status.Valid() {
		return nil, 0, core.Invalid("verification", "must be UNVERIFIED, VERIFIED or FAILED")
	}
	var out []invoice.Bill
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Invoices().ListInboundBills(ctx, p.TenantID, p.Environment, status, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// GetInbound is one bill sent to the caller's tenant.
func (s *Service) GetInbound(ctx context.Context, p auth.Principal, id string) (invoice.Bill, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRead); err != nil {
		return invoice.Bill{}, err
	}
	return s.findBill(ctx, p, id)
}

func (s *Service) findBill(ctx context.Context, p auth.Principal, id string) (invoice.Bill, error) {
	var b invoice.Bill
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		b, err = tx.Invoices().FindInboundBill(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return b, err
}

// AcceptRead is a validated acceptance with its payment's chain reads.
type AcceptRead struct {
	tenantID, billID string
	payment          PaymentRead
}

// checkAcceptable lets a VERIFIED bill be accepted when the payer has not accepted it yet, or
// accepted it with a payment that ended without moving money (CANCELLED or FAILED): that
// acceptance is replaced, as an escrow invoice's failed settlement is (docs/invoices.md).
func checkAcceptable(ctx context.Context, tx txView, b invoice.Bill) error {
	if b.VerificationStatus != invoice.Verified {
		return core.E(core.CodeInvalidState, "bill %s is %s: only a VERIFIED bill can be accepted", b.ID, b.VerificationStatus).
			WithDetails(map[string]any{"verificationStatus": string(b.VerificationStatus)})
	}
	if b.PayerDecision == "" {
		return nil
	}
	if b.PayerPaymentID != "" {
		pay, err := tx.Payments().FindPayment(ctx, b.PayerTenantID, b.Environment, b.PayerPaymentID)
		if err != nil {
			return err
		}
		if pay.Status == safepay.StatusCancelled || pay.Status == safepay.StatusFailed {
			return nil
		}
	}
	return core.E(core.CodeInvalidState, "bill %s was already %s (payment %s)", b.ID, b.PayerDecision, b.PayerPaymentID).
		WithDetails(map[string]any{"payerDecision": b.PayerDecision})
}

// ReadAccept validates the payer's acceptance and reads the chain for its Safe payment from
// one of the payer's wallets to the payee (outside any unit of work).
func (s *Service) ReadAccept(ctx context.Context, p auth.Principal, id, walletID, challengeID string) (AcceptRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesPay); err != nil {
		return AcceptRead{}, err
	}
	if strings.TrimSpace(walletID) == "" {
		if _, err := s.findBill(ctx, p, id); err != nil {
			return AcceptRead{}, err
		}
		return AcceptRead{}, core.Invalid("walletId", "is required")
	}
	var b invoice.Bill
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if b, err = tx.Invoices().FindInboundBill(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		return checkAcceptable(ctx, tx, b)
	})
	if err != nil {
		return AcceptRead{}, err
	}
	chain := b.ChainID
	req := safepay.Request{SourceWalletID: strings.TrimSpace(walletID),
		Destination: &safepay.DestinationInput{Type: "address", Address: b.PayeeAddress, ChainID: &chain},
		AmountValue: core.FormatUSD(b.AmountBaseUnits), AmountAsset: "usdc", Memo: "bill " + b.ID,
		TwofaChallengeID: strings.TrimSpace(challengeID)}
	read, err := s.payments.ReadPayment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate), req)
	if err != nil {
		return AcceptRead{}, err
	}
	return AcceptRead{tenantID: p.TenantID, billID: b.ID, payment: read}, nil
}

// Accept proposes the payment and records the payer's decision, in one unit of work under the
// bill's lock: two concurrent acceptances propose one payment.
func (s *Service) Accept(ctx context.Context, p auth.Principal, read AcceptRead) (invoice.Bill, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesPay); err != nil {
		return invoice.Bill{}, err
	}
	if read.tenantID != p.TenantID {
		return invoice.Bill{}, core.E(core.CodeInternal, "invoices: an accept read for another tenant")
	}
	var out invoice.Bill
	var refused error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refused = nil
		if _, err := tx.Invoices().FindInboundBill(ctx, p.TenantID, p.Environment, read.billID); err != nil {
			return err
		}
		b, err := tx.Invoices().LockBill(ctx, p.TenantID, read.billID)
		if err != nil {
			return err
		}
		if err := checkAcceptable(ctx, tx, b); err != nil {
			return err
		}
		pay, err := read.payment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate))
		if kernel.IsCommitted(err) {
			// A two-factor challenge (or a policy's FAILED record) outlives the refusal; the
			// bill stays undecided until the payment is proposed.
			refused = err
			return nil
		}
		if err != nil {
			return err
		}
		b.PayerDecision, b.PayerPaymentID = invoice.DecisionAccepted, pay.ID
		out = b
		return tx.Invoices().UpdateBill(ctx, b)
	})
	if err == nil && refused != nil {
		return invoice.Bill{}, refused
	}
	return out, err
}
