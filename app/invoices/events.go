package invoices

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/invoice"
)

// saveInvoice writes an invoice and, in the same unit of work, the event of the status it
// reached (invoice.<status>; an update that leaves the status as it was records none).
func saveInvoice(ctx context.Context, tx txView, inv invoice.Invoice, create bool) error {
	write := tx.Invoices().UpdateInvoice
	if create {
		write = tx.Invoices().CreateInvoice
	}
	if err := write(ctx, inv); err != nil {
		return err
	}
	return kernel.RecordEvent(ctx, tx, inv.TenantID, inv.Environment, "invoice", inv.ID, string(inv.Status), inv.AmountBaseUnits, inv.UpdatedAt, nil)
}
