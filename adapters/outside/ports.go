package outside

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// Issuer guards a card issuer.
type Issuer struct{ ports.CardIssuer }

var _ ports.CardIssuer = Issuer{}

// IssueCard issues after the guard's check.
func (i Issuer) IssueCard(ctx context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	if err := Check(ctx, "CardIssuer.IssueCard"); err != nil {
		return ports.IssuedCard{}, err
	}
	return i.CardIssuer.IssueCard(ctx, in)
}

// SetCardStatus changes the status after the guard's check.
func (i Issuer) SetCardStatus(ctx context.Context, issuerCardID string, active bool) error {
	if err := Check(ctx, "CardIssuer.SetCardStatus"); err != nil {
		return err
	}
	return i.CardIssuer.SetCardStatus(ctx, issuerCardID, active)
}

// CreateEphemeralKey mints after the guard's check.
func (i Issuer) CreateEphemeralKey(ctx context.Context, in ports.EphemeralKeyInput) (ports.EphemeralKey, error) {
	if err := Check(ctx, "CardIssuer.CreateEphemeralKey"); err != nil {
		return ports.EphemeralKey{}, err
	}
	return i.CardIssuer.CreateEphemeralKey(ctx, in)
}

// SMS guards an SMS gateway.
type SMS struct{ ports.SMS }

var _ ports.SMS = SMS{}

// Send texts after the guard's check.
func (s SMS) Send(ctx context.Context, m ports.SMSMessage, now time.Time) error {
	if err := Check(ctx, "SMS.Send"); err != nil {
		return err
	}
	return s.SMS.Send(ctx, m, now)
}

// Screening guards a screening vendor.
type Screening struct{ ports.Screening }

var _ ports.Screening = Screening{}

// Screen screens after the guard's check.
func (s Screening) Screen(ctx context.Context, in ports.ScreeningInput) ([]offramp.HoldReason, error) {
	if err := Check(ctx, "Screening.Screen"); err != nil {
		return nil, err
	}
	return s.Screening.Screen(ctx, in)
}

// Payout guards a payout provider.
type Payout struct{ ports.PayoutProvider }

var _ ports.PayoutProvider = Payout{}

// Submit submits after the guard's check.
func (p Payout) Submit(ctx context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	if err := Check(ctx, "PayoutProvider.Submit"); err != nil {
		return ports.PayoutStatus{}, err
	}
	return p.PayoutProvider.Submit(ctx, r)
}

// Poll polls after the guard's check.
func (p Payout) Poll(ctx context.Context, reference string) (ports.PayoutStatus, error) {
	if err := Check(ctx, "PayoutProvider.Poll"); err != nil {
		return ports.PayoutStatus{}, err
	}
	return p.PayoutProvider.Poll(ctx, reference)
}

// networkPayout is Payout over a provider that also names its network: the decorator keeps
// the provider's optional interface visible to the off-ramp's rail selection.
type networkPayout struct {
	Payout
	ports.NetworkPayout
}

// WrapPayout guards a payout provider, keeping its NetworkPayout side when it has one.
func WrapPayout(p ports.PayoutProvider) ports.PayoutProvider {
	if p == nil {
		return nil
	}
	if n, ok := p.(ports.NetworkPayout); ok {
		return networkPayout{Payout: Payout{p}, NetworkPayout: n}
	}
	return Payout{p}
}

// WebhookSender is the partner webhook sender as the webhooks capability declares it.
type WebhookSender interface {
	CheckDestination(ctx context.Context, rawURL string, allowPrivate bool) error
	Send(ctx context.Context, rawURL string, body []byte, headers map[string]string, allowPrivate bool) (int, error)
}

// Webhooks guards the partner webhook sender: resolving a destination and delivering both
// leave the process.
type Webhooks struct{ WebhookSender }

// CheckDestination resolves after the guard's check.
func (w Webhooks) CheckDestination(ctx context.Context, rawURL string, allowPrivate bool) error {
	if err := Check(ctx, "Webhooks.CheckDestination"); err != nil {
		return err
	}
	return w.WebhookSender.CheckDestination(ctx, rawURL, allowPrivate)
}

// Send delivers after the guard's check.
func (w Webhooks) Send(ctx context.Context, rawURL string, body []byte, headers map[string]string, allowPrivate bool) (int, error) {
	if err := Check(ctx, "Webhooks.Send"); err != nil {
		return 0, err
	}
	return w.WebhookSender.Send(ctx, rawURL, body, headers, allowPrivate)
}

// Custody guards a custody signer (docs/decisions/wallets.md): an HSM is outside the process.
type Custody struct{ ports.CustodySigner }

var _ ports.CustodySigner = Custody{}

// CreateKey makes a key after the guard's check.
func (c Custody) CreateKey(ctx context.Context) (ports.CustodyKey, error) {
	if err := Check(ctx, "CustodySigner.CreateKey"); err != nil {
		return ports.CustodyKey{}, err
	}
	return c.CustodySigner.CreateKey(ctx)
}

// SignHash signs after the guard's check.
func (c Custody) SignHash(ctx context.Context, ref string, hash [32]byte) ([]byte, error) {
	if err := Check(ctx, "CustodySigner.SignHash"); err != nil {
		return nil, err
	}
	return c.CustodySigner.SignHash(ctx, ref, hash)
}
