package http

import (
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// The secondary surface (docs/decisions/checkout.md, docs/api.md "Secondary surface"): thin mappings onto the
// canonical use cases; nothing here stores anything of its own.

// createWalletEither serves POST /v1/wallets for both surfaces: the body's shape selects one
// (the register step marked a secondary body already). It is prepared: a custodial wallet's key
// is made by the custody signer before the unit of work (docs/decisions/reliability.md).
func (h *walletsHandlers) createWalletEither(c *fiber.Ctx) (fiber.Handler, error) {
	if secondary, _ := c.Locals(localSecondary).(bool); secondary {
		return h.createSecondaryWallet(c)
	}
	return h.createWallet, nil
}

// secondaryCurrencies are the currencies a secondary wallet names, in the order answered.
var secondaryCurrencies = []string{"USDC", "ETH"}

// createSecondaryWallet creates a 1-of-1 Safe named after the customer, owned by owner_address
// when given, else by a fresh custody key (a custodial wallet, docs/decisions/wallets.md); every currency asked for is
// held at the Safe's one address.
func (h *walletsHandlers) createSecondaryWallet(c *fiber.Ctx) (fiber.Handler, error) {
	var req secondaryWalletCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	customer, currencies, err := validSecondaryWallet(req)
	if err != nil {
		return nil, err
	}
	answer := func(c *fiber.Ctx, w wallet.Wallet) error {
		out := secondaryWalletResponse{WalletID: w.ID, Addresses: map[string]string{}, CreatedAt: w.CreatedAt}
		for _, cur := range currencies {
			out.Addresses[cur] = w.Address
		}
		return c.Status(fiber.StatusCreated).JSON(out)
	}
	if req.OwnerAddress == "" {
		key, err := h.svc.ReadCustodyKey(c.UserContext(), principal(c))
		if err != nil {
			return nil, err
		}
		return func(c *fiber.Ctx) error {
			w, err := h.svc.CreateCustodialWallet(c.UserContext(), principal(c), key, customer)
			if err != nil {
				return err
			}
			return answer(c, w)
		}, nil
	}
	return func(c *fiber.Ctx) error {
		threshold := 1
		w, err := h.svc.CreateWallet(c.UserContext(), principal(c), wallets.CreateWalletInput{
			Name: customer, Threshold: &threshold,
			Owners: []wallet.OwnerInput{{Address: req.OwnerAddress, Role: "ADMIN_OWNER"}},
		})
		if err != nil {
			return err
		}
		return answer(c, w)
	}, nil
}

// validSecondaryWallet checks the secondary body: the customer, the currencies (deduplicated,
// upper case) and, when present, the owner's address.
func validSecondaryWallet(req secondaryWalletCreateRequest) (string, []string, error) {
	errs := core.FieldErrors{}
	customer := strings.TrimSpace(req.CustomerID)
	if customer == "" {
		errs.Add("customer_id", "is required")
	}
	var currencies []string
	if len(req.Currencies) == 0 {
		errs.Add("currencies", "is required: a non-empty array of USDC, ETH")
	}
	for _, cur := range req.Currencies {
		up := strings.ToUpper(strings.TrimSpace(cur))
		if !slices.Contains(secondaryCurrencies, up) {
			errs.Add("currencies", "must hold only USDC and ETH")
			break
		}
		if !slices.Contains(currencies, up) {
			currencies = append(currencies, up)
		}
	}
	if req.OwnerAddress != "" && !core.IsEVMAddress(req.OwnerAddress) {
		errs.Add("owner_address", "must be the 0x address of the key that owns the Safe, or be left out for a wallet the service signs for")
	}
	return customer, currencies, errs.Err()
}

// secondaryBalance answers the wallet's live on-chain balances; USDC counts 1:1 in USD.
func (h *walletsHandlers) secondaryBalance(c *fiber.Ctx) error {
	v, err := h.svc.GetWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	if v.Balances == nil {
		return core.E(core.CodeChainUnavailable, "the chain node did not answer the balance read; retry shortly")
	}
	out := secondaryBalanceResponse{WalletID: v.Wallet.ID, Balances: []secondaryBalanceLine{}}
	total := int64(0)
	for _, b := range v.Balances {
		line := secondaryBalanceLine{Currency: strings.ToUpper(string(b.Asset)), Amount: wallet.FormatBigAmount(b.Asset, b.AmountBaseUnits)}
		if b.Asset == wallet.AssetUSDC {
			usd := line.Amount
			line.USDValue = &usd
			if b.AmountBaseUnits.IsInt64() {
				total += b.AmountBaseUnits.Int64()
			}
		}
		out.Balances = append(out.Balances, line)
	}
	out.TotalUSDValue = wallet.FormatBigAmount(wallet.AssetUSDC, big.NewInt(total))
	return c.JSON(out)
}

// secondarySend proposes a Safe payment of USDC to an address (the prepared propose of POST
// /v1/payments): the wallet's live USDC balance must cover it (insufficient_funds), and the
// answer is the payment awaiting its owners' signatures.
func (h *walletsHandlers) secondarySend(c *fiber.Ctx) (fiber.Handler, error) {
	p := principal(c)
	if err := p.Require(auth.ScopePaymentsCreate, auth.ScopeWalletsRead); err != nil {
		return nil, err
	}
	var req secondarySendRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	errs := core.FieldErrors{}
	if !strings.EqualFold(strings.TrimSpace(req.Currency), "USDC") {
		errs.Add("currency", "must be USDC")
	}
	units, err := core.ParseAmount("amount", 6, req.Amount.String())
	switch {
	case err != nil:
		errs.Add("amount", "must be a positive decimal with at most 6 fraction digits")
	case units <= 0:
		errs.Add("amount", "must be greater than 0")
	}
	if !core.IsEVMAddress(strings.TrimSpace(req.Destination)) {
		errs.Add("destination", "must be a 0x address of 40 hex digits")
	}
	note := ""
	if req.Note != nil {
		note = *req.Note
		if len([]rune(note)) > safepay.MaxMemoLength {
			errs.Add("note", "must be at most "+strconv.Itoa(safepay.MaxMemoLength)+" characters")
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	walletID := strings.TrimSpace(c.Params("id"))
	v, err := h.svc.GetWallet(c.UserContext(), p, walletID)
	if err != nil {
		return nil, err
	}
	if v.Balances == nil {
		return nil, core.E(core.CodeChainUnavailable, "the chain node did not answer the balance read; retry shortly")
	}
	for _, b := range v.Balances {
		if b.Asset == wallet.AssetUSDC && b.AmountBaseUnits.Cmp(big.NewInt(units)) < 0 {
			return nil, (&core.Error{Code: core.CodeInsufficientFunds,
				Message: "the wallet's USDC balance does not cover the amount"}).
				WithDetails(map[string]any{"available": wallet.FormatBigAmount(b.Asset, b.AmountBaseUnits), "requested": req.Amount.String()})
		}
	}
	in := safepay.Request{
		SourceWalletID: walletID, AmountValue: req.Amount.String(), AmountAsset: "usdc", Memo: note,
		Destination: &safepay.DestinationInput{Type: "address", Address: strings.TrimSpace(req.Destination), ChainID: &v.Wallet.ChainID},
	}
	if req.TwofaChallengeID != nil {
		in.TwofaChallengeID = *req.TwofaChallengeID
	}
	read, err := h.payments.ReadProposal(c.UserContext(), p, in)
	if err != nil {
		return nil, secondaryChallengeField(err)
	}
	return func(c *fiber.Ctx) error {
		pay, err := h.payments.Propose(c.UserContext(), principal(c), read)
		if err != nil {
			return secondaryChallengeField(err)
		}
		return c.Status(fiber.StatusCreated).JSON(toSecondarySend(pay, v.Wallet.Custodial()))
	}, nil
}

// secondaryChallengeField makes a TWOFA_REQUIRED refusal name this route's body field,
// twofa_challenge_id, where the canonical routes' message says twofaChallengeId. The error is
// changed in place (it is made fresh for each refusal) so whatever wraps it, such as the
// marker that commits the new challenge with the refusal, still wraps it.
func secondaryChallengeField(err error) error {
	var e *core.Error
	if errors.As(err, &e) && e.Code == twofactor.CodeRequired {
		e.Message = strings.ReplaceAll(e.Message, "twofaChallengeId", "twofa_challenge_id")
	}
	return err
}

// toSecondarySend answers a send. A custodial wallet's payment is signed by the service right
// after its proposal commits, so it is on its way even while it awaits that signature.
func toSecondarySend(pay safepay.Payment, custodial bool) secondarySendResponse {
	out := secondarySendResponse{TransactionID: pay.ID, Status: secondaryStatus(pay.Status), TransactionHash: strPtr(pay.ExecutedTxHash)}
	if pay.Status == safepay.StatusAwaitingSignature && custodial {
		at := pay.UpdatedAt.Add(time.Minute).UTC()
		out.EstimatedConfirmation = &at
	}
	switch pay.Status {
	case safepay.StatusReadyToExecute, safepay.StatusExecuting:
		// Executed by the relayer and confirmed within about a minute on the environment's chain.
		at := pay.UpdatedAt.Add(time.Minute).UTC()
		out.EstimatedConfirmation = &at
	case safepay.StatusCompleted:
		at := pay.UpdatedAt.UTC()
		out.EstimatedConfirmation = &at
	}
	return out
}

// secondaryStatus is a Safe payment status in the secondary vocabulary (its lower case;
// CREATED is never shown, a payment is AWAITING_SIGNATURE once stored).
func secondaryStatus(st safepay.Status) string {
	if st == safepay.StatusCreated {
		return "awaiting_signature"
	}
	return strings.ToLower(string(st))
}

// secondaryQuery is the query of the secondary transaction lists.
type secondaryQuery struct {
	limit, offset    int
	currency, typ    string
	status           string
	fromDate, toDate time.Time
}

// secondaryStatuses are the statuses a transaction shows (a payment received is completed).
var secondaryStatuses = []string{"awaiting_signature", "signing", "ready_to_execute", "executing", "completed", "failed", "cancelled"}

func parseSecondaryQuery(c *fiber.Ctx) (secondaryQuery, error) {
	errs := core.FieldErrors{}
	q := secondaryQuery{}
	var err error
	if q.limit, err = queryInt(c, "limit", 100, 100); err != nil || (q.limit == 0 && c.Query("limit") != "") {
		errs.Add("limit", "must be an integer from 1 to 100")
	}
	if q.offset, err = queryInt(c, "offset", 0, MaxSecondaryHistory); err != nil {
		errs.Add("offset", "must be an integer from 0 to "+strconv.Itoa(MaxSecondaryHistory))
	}
	if q.currency = strings.ToUpper(strings.TrimSpace(c.Query("currency"))); q.currency != "" && q.currency != "USDC" {
		errs.Add("currency", "must be USDC")
	}
	if q.typ = strings.TrimSpace(c.Query("type")); q.typ != "" && !slices.Contains([]string{"payment", "withdrawal", "refund"}, q.typ) {
		errs.Add("type", "must be one of payment, withdrawal, refund")
	}
	if q.status = strings.TrimSpace(c.Query("status")); q.status != "" && !slices.Contains(secondaryStatuses, q.status) {
		errs.Add("status", "must be one of "+strings.Join(secondaryStatuses, ", "))
	}
	q.fromDate, q.toDate = parseDateWindow(c, errs)
	return q, errs.Err()
}

// parseDateWindow reads from_date (inclusive) and to_date (exclusive as an instant, inclusive
// as a whole YYYY-MM-DD day) into errs' fields; zero times when absent.
func parseDateWindow(c *fiber.Ctx, errs core.FieldErrors) (from, to time.Time) {
	for _, f := range []struct {
		name string
		dst  *time.Time
		day  time.Duration
	}{{"from_date", &from, 0}, {"to_date", &to, 24 * time.Hour}} {
		raw := strings.TrimSpace(c.Query(f.name))
		if raw == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
			*f.dst = t
		} else if d, err := time.Parse(time.DateOnly, raw); err == nil {
			*f.dst = d.Add(f.day) // a to_date day is inclusive
		} else {
			errs.Add(f.name, "must be an RFC 3339 instant or a YYYY-MM-DD date")
		}
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		errs.Add("to_date", "must be after from_date")
	}
	return from, to
}

// MaxSecondaryHistory is how deep the secondary lists page (offset at most 10000): every row is
// counted and reachable by narrowing the dates, and a page reads at most offset+limit rows of
// each source along its index.
const MaxSecondaryHistory = ports.MaxActivitySkip

func (h *walletsHandlers) secondaryWalletTransactions(c *fiber.Ctx) error {
	return h.secondaryTransactionList(c, strings.TrimSpace(c.Params("id")))
}

func (h *walletsHandlers) secondaryTransactions(c *fiber.Ctx) error {
	return h.secondaryTransactionList(c, "")
}

// secondaryTransactionList answers a page of a wallet's (or every wallet's) transactions: it
// decodes the query, asks the wallets capability's Activity use case (which checks the scopes
// and pages the merged Safe payments and ledger mirror lines in the store) and encodes the
// page in the secondary shape.
func (h *walletsHandlers) secondaryTransactionList(c *fiber.Ctx, walletID string) error {
	q, err := parseSecondaryQuery(c)
	if err != nil {
		return err
	}
	page, err := h.svc.Activity(c.UserContext(), principal(c), ports.ActivityQuery{WalletID: walletID, Type: q.typ,
		Status: strings.ToUpper(q.status), From: q.fromDate, To: q.toDate}, ports.Page{Skip: q.offset, Take: q.limit})
	if err != nil {
		return err
	}
	out := secondaryTransactionListResponse{Data: make([]secondaryTransaction, 0, len(page.Rows)), Total: page.Total,
		HasMore: page.HasMore}
	for _, r := range page.Rows {
		out.Data = append(out.Data, secondaryTransaction{ID: r.ID, WalletID: strPtr(r.WalletID), Type: r.Type, Currency: "USDC",
			Amount: wallet.FormatAmount(wallet.AssetUSDC, r.AmountBaseUnits), Status: strings.ToLower(r.Status),
			TransactionHash: strPtr(r.TxHash), Counterparty: strPtr(r.Counterparty), Note: strPtr(r.Note), CreatedAt: r.CreatedAt})
	}
	return c.JSON(out)
}
