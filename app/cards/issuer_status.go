package cards

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// IssuerStatusArgs is the outbox job that tells the issuer a card's status after the freeze or
// unfreeze that changed it committed (docs/decisions/reliability.md). It carries the card, never the status: the
// job reads the status the card has when it runs, so jobs of a freeze and a later unfreeze
// leave the issuer where the card is, whatever order they run in.
type IssuerStatusArgs struct {
	TenantID    string `json:"tenantId"`
	Environment string `json:"environment"`
	CardID      string `json:"cardId"`
}

// Kind names the job.
func (IssuerStatusArgs) Kind() string { return "card.issuer_status" }

const (
	issuerStatusMaxAttempts = 25
	issuerStatusTimeout     = 30 * time.Second
)

// enqueueIssuerStatus writes the outbox job in the caller's unit of work.
func (s *Service) enqueueIssuerStatus(ctx context.Context, c card.Card) error {
	return s.jobs.Enqueue(ctx, IssuerStatusArgs{TenantID: c.TenantID, Environment: string(c.Environment), CardID: c.ID},
		ports.JobOptions{MaxAttempts: issuerStatusMaxAttempts})
}

// SyncIssuerStatus reads the card in its own unit of work, then sets its status at the issuer
// outside any transaction. Setting a status the issuer already holds is a no-op there, so a
// retried job is harmless: the card's id (its issuer card id) is the call's idempotency key.
func (s *Service) SyncIssuerStatus(ctx context.Context, tenantID string, env core.Environment, cardID string) error {
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		c, err = tx.Cards().FindCard(ctx, tenantID, env, cardID)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.issuer.SetCardStatus(ctx, c.IssuerCardID, c.Status == card.StatusActive); err != nil {
		return err
	}
	kernel.CrashPoint(kernel.CrashCardIssuerStatusSent)
	return nil
}
