package console

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	httpapi "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/ports"
)

// maxCheckoutExport bounds one CSV export of checkouts (the API's list pages hold 100).
const maxCheckoutExport = 10000

// checkoutPages are the checkout actions: create one (as POST /v1/payments does), refund what a
// checkout received (as POST /v1/payments/{id}/refund does), and export the list as CSV. Each
// calls the checkout use cases, so scopes and the refund ceiling are the API's.
type checkoutPages struct{ *Console }

func (k checkoutPages) checkoutRoutes(r fiber.Router) {
	r.Post("/checkouts", k.create)
	r.Get("/checkouts.csv", k.export)
	r.Post("/checkouts/:id/refund", k.refund)
}

// create reads the chain's head (Prepare) outside the form's unit, then stores the checkout
// once per form, and goes to its page.
func (k checkoutPages) create(c *fiber.Ctx) error {
	cents, err := core.ParseAmount("amount", 2, strings.TrimSpace(c.FormValue("amount")))
	if err != nil {
		return k.fail(c, err)
	}
	in := checkouts.CreateInput{Amount: cents * 10_000, Currency: "USD", Cryptocurrency: "USDC",
		Description: strings.TrimSpace(c.FormValue("description")), CustomerEmail: strings.TrimSpace(c.FormValue("customerEmail"))}
	prepared, err := k.svc.Checkout.Prepare(c.UserContext(), principal(c), in)
	if err != nil {
		return k.fail(c, err)
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		ch, err := k.svc.Checkout.Create(ctx, principal(c), prepared)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/checkouts/" + ch.ID,
			First: flash{Kind: "checkout", ID: ch.ID, Notice: "Checkout created: send the customer its payment page, /pay/" + ch.ID + "."},
			Again: flash{Kind: "checkout", ID: ch.ID, Notice: "This form was already submitted: the checkout was created then, once."},
		}, nil
	})
}

// refund returns everything still refundable to the payer, or to the address given (a payment
// whose sender is not known, such as a sandbox one, needs it).
func (k checkoutPages) refund(c *fiber.Ctx) error {
	id, address := c.Params("id"), strings.TrimSpace(c.FormValue("address"))
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		r, err := k.svc.Checkout.Refund(ctx, principal(c), id, checkouts.RefundInput{Address: address})
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/checkouts/" + id,
			First: flash{Kind: "checkout", ID: id, Notice: "Refund " + r.ID + " of " + usd(r.Amount) + " USDC queued to " + r.Destination + "."},
			Again: flash{Kind: "checkout", ID: id, Notice: "This form was already submitted: the refund was queued then, once."},
		}, nil
	})
}

// export writes the checkouts of the status filter as CSV, newest first, free text guarded
// against spreadsheet formulas.
func (k checkoutPages) export(c *fiber.Ctx) error {
	status, err := checkoutStatus(c)
	if err != nil {
		return k.fail(c, err)
	}
	q := ports.CheckoutQuery{Status: status}
	release, err := k.exportSlot(c)
	if err != nil {
		return k.fail(c, err)
	}
	defer release()
	list, _, err := k.svc.Checkout.List(c.UserContext(), principal(c), q, ports.Page{Take: maxCheckoutExport})
	if err != nil {
		return k.fail(c, err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true // as every CSV export writes it (RFC 4180)
	_ = w.Write([]string{"id", "created_at", "status", "failure_reason", "amount_usd", "received_usdc", "refunded_usdc", "description", "customer_email", "deposit_address", "transaction_hash"})
	for _, ch := range list {
		_ = w.Write([]string{ch.ID, ch.CreatedAt.UTC().Format(httpapi.CSVTime), string(ch.Status), ch.FailureReason,
			usd(ch.Amount), usd(ch.Received), usd(ch.Refunded), httpapi.CSVText(ch.Description), httpapi.CSVText(ch.CustomerEmail),
			ch.DepositAddress, ch.TransactionHash})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return k.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="corridor-checkouts.csv"`)
	return c.Send(buf.Bytes())
}

// checkoutStatuses are the statuses ?status= filters the checkouts by, as GET /v1/checkouts.
var checkoutStatuses = []checkout.Status{checkout.StatusCreated, checkout.StatusPending, checkout.StatusCompleted, checkout.StatusFailed}

// checkoutStatus reads ?status= as GET /v1/checkouts does, in either case: empty for every
// checkout, one of checkoutStatuses, or VALIDATION_FAILED rather than an empty list.
func checkoutStatus(c *fiber.Ctx) (checkout.Status, error) {
	status := checkout.Status(strings.ToUpper(strings.TrimSpace(c.Query("status"))))
	if status == "" || slices.Contains(checkoutStatuses, status) {
		return status, nil
	}
	return "", core.Invalid("status", "must be one of created, pending, completed, failed")
}
