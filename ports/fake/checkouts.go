package fake

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// checkoutTables hold hosted checkouts and their refunds.
type checkoutTables struct {
	checkouts table[checkout.Checkout]
	refunds   table[checkout.Refund]
}

func newCheckoutTables() checkoutTables {
	return checkoutTables{checkouts: newTable[checkout.Checkout](), refunds: newTable[checkout.Refund]()}
}

func (t checkoutTables) clone() checkoutTables {
	return checkoutTables{checkouts: t.checkouts.clone(), refunds: t.refunds.clone()}
}

type checkoutRepo struct{ s *Store }

var _ ports.CheckoutRepo = checkoutRepo{}

func (r checkoutRepo) t() *checkoutTables { return &r.s.state.checkouts }

// CreateCheckout checks the row as the Postgres store does before inserting it, and keeps a
// deposit address one checkout's across tenants (the address's lookup row in Postgres).
func (r checkoutRepo) CreateCheckout(_ context.Context, c checkout.Checkout) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if taken := r.t().checkouts.filter(func(x checkout.Checkout) bool { return x.DepositAddress == c.DepositAddress }, false); len(taken) > 0 {
		return fmt.Errorf("fake: deposit address %s is checkout %s's", c.DepositAddress, taken[0].ID)
	}
	return r.t().checkouts.insert(c.ID, c)
}

func (r checkoutRepo) FindCheckout(_ context.Context, tenantID string, env core.Environment, id string) (checkout.Checkout, error) {
	c, ok := r.t().checkouts.rows[id]
	if !ok || c.TenantID != tenantID || c.Environment != env {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	return c, nil
}

func (r checkoutRepo) FindPublicCheckout(_ context.Context, id string) (checkout.Checkout, error) {
	c, ok := r.t().checkouts.rows[id]
	if !ok {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	return c, nil
}

func (r checkoutRepo) LockCheckout(ctx context.Context, tenantID, id string) (checkout.Checkout, error) {
	c, err := r.FindPublicCheckout(ctx, id)
	if err == nil && c.TenantID != tenantID {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	return c, err
}

// UpdateCheckout writes the columns the Postgres store writes; the rest of the row stays.
func (r checkoutRepo) UpdateCheckout(_ context.Context, c checkout.Checkout) error {
	if err := c.Validate(); err != nil {
		return err
	}
	stored, ok := r.t().checkouts.rows[c.ID]
	if !ok {
		return checkout.ErrNotFound
	}
	stored.Status, stored.Received, stored.Credited, stored.Refunded = c.Status, c.Received, c.Credited, c.Refunded
	stored.TransactionHash, stored.Confirmations, stored.PayerAddress = c.TransactionHash, c.Confirmations, c.PayerAddress
	stored.FailureReason, stored.SweepTxHash, stored.ExpiresAt, stored.WatchUntil = c.FailureReason, c.SweepTxHash, c.ExpiresAt, c.WatchUntil
	stored.UpdatedAt, stored.CompletedAt = c.UpdatedAt, c.CompletedAt
	r.t().checkouts.rows[c.ID] = stored
	return nil
}

// ListCheckouts is newest first by creation time.
func (r checkoutRepo) ListCheckouts(_ context.Context, q ports.CheckoutQuery, p ports.Page) ([]checkout.Checkout, int, error) {
	rows := r.t().checkouts.filter(func(c checkout.Checkout) bool {
		return c.TenantID == q.TenantID && c.Environment == q.Environment && (q.Status == "" || c.Status == q.Status) &&
			(q.From.IsZero() || !c.CreatedAt.Before(q.From)) && (q.To.IsZero() || c.CreatedAt.Before(q.To))
	}, true)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].CreatedAt.After(rows[j].CreatedAt) })
	out, total := page(rows, p)
	return out, total, nil
}

func (r checkoutRepo) ListWatched(_ context.Context, env core.Environment, now time.Time, after string, limit int) ([]checkout.Checkout, error) {
	rows := r.t().checkouts.filter(func(c checkout.Checkout) bool {
		return c.Environment == env && c.WatchUntil.After(now) && c.ID > after
	}, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r checkoutRepo) CreateRefund(_ context.Context, x checkout.Refund) error {
	if err := x.Validate(); err != nil {
		return err
	}
	return r.t().refunds.insert(x.ID, x)
}

// UpdateRefund writes the status, the transaction hash and the update time.
func (r checkoutRepo) UpdateRefund(_ context.Context, x checkout.Refund) error {
	stored, ok := r.t().refunds.rows[x.ID]
	if !ok {
		return checkout.ErrNotFound
	}
	stored.Status, stored.TxHash, stored.UpdatedAt = x.Status, x.TxHash, x.UpdatedAt
	r.t().refunds.rows[x.ID] = stored
	return nil
}

func (r checkoutRepo) ListRefunds(_ context.Context, tenantID, checkoutID string) ([]checkout.Refund, error) {
	rows := r.t().refunds.filter(func(x checkout.Refund) bool { return x.TenantID == tenantID && x.CheckoutID == checkoutID }, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return rows, nil
}

// RefundedInWindows sums the tenant's refunds per window.
func (r checkoutRepo) RefundedInWindows(_ context.Context, env core.Environment, tenantID string, w policy.Windows) (policy.Spend, error) {
	var s policy.Spend
	for _, x := range r.t().refunds.filter(func(x checkout.Refund) bool { return x.Environment == env && x.TenantID == tenantID }, false) {
		if w.Daily.Contains(x.CreatedAt) {
			s.Daily += x.Amount
		}
		if w.Weekly.Contains(x.CreatedAt) {
			s.Weekly += x.Amount
		}
		if w.Monthly.Contains(x.CreatedAt) {
			s.Monthly += x.Amount
		}
	}
	return s, nil
}

// CheckoutRefunds returns a checkout's stored refunds, for assertions.
func (s *Store) CheckoutRefunds(checkoutID string) []checkout.Refund {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.checkouts.refunds.filter(func(x checkout.Refund) bool { return x.CheckoutID == checkoutID }, false)
}
