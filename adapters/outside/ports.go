package outside

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// Issuer guards a card issuer. With Health set, each call's outcome feeds the issuer's health,
// and a call that got no answer returns PROVIDER_UNAVAILABLE (503) to the route that made it.
type Issuer struct {
	ports.CardIssuer
	Health *Health
}

// Names of the SMS gateway and the card issuer in the health report.
const (
	IssuerHealthName = "card_issuer"
	SMSHealthName    = "sms"
)

func (i Issuer) observe(err error) error {
	if i.Health == nil {
		return err
	}
	i.Health.Observe(IssuerHealthName, KindCardIssuer, err)
	return unavailableErr("the card issuer", err)
}

var _ ports.CardIssuer = Issuer{}

// IssueCard issues after the guard's check.
func (i Issuer) IssueCard(ctx context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	if err := Check(ctx, "CardIssuer.IssueCard"); err != nil {
		return ports.IssuedCard{}, err
	}
	out, err := i.CardIssuer.IssueCard(ctx, in)
	return out, i.observe(err)
}

// SetCardStatus changes the status after the guard's check.
func (i Issuer) SetCardStatus(ctx context.Context, issuerCardID string, active bool) error {
	if err := Check(ctx, "CardIssuer.SetCardStatus"); err != nil {
		return err
	}
	return i.observe(i.CardIssuer.SetCardStatus(ctx, issuerCardID, active))
}

// CreateEphemeralKey mints after the guard's check.
func (i Issuer) CreateEphemeralKey(ctx context.Context, in ports.EphemeralKeyInput) (ports.EphemeralKey, error) {
	if err := Check(ctx, "CardIssuer.CreateEphemeralKey"); err != nil {
		return ports.EphemeralKey{}, err
	}
	out, err := i.CardIssuer.CreateEphemeralKey(ctx, in)
	return out, i.observe(err)
}

// SMS guards an SMS gateway; with Health set, each send's outcome feeds the gateway's health.
type SMS struct {
	ports.SMS
	Health *Health
}

var _ ports.SMS = SMS{}

// Send texts after the guard's check.
func (s SMS) Send(ctx context.Context, m ports.SMSMessage, now time.Time) error {
	if err := Check(ctx, "SMS.Send"); err != nil {
		return err
	}
	err := s.SMS.Send(ctx, m, now)
	if s.Health == nil {
		return err
	}
	s.Health.Observe(SMSHealthName, KindSMS, err)
	return unavailableErr("the SMS gateway", err)
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

// Payout guards a payout provider; with Health set, each call's outcome feeds the provider's
// health under HealthName ("payout:" and the provider's name).
type Payout struct {
	ports.PayoutProvider
	Health     *Health
	HealthName string
}

func (p Payout) observe(err error) error {
	if p.Health == nil {
		return err
	}
	p.Health.Observe(p.HealthName, KindPayoutProvider, err)
	return unavailableErr("the payout provider", err)
}

var _ ports.PayoutProvider = Payout{}

// Submit submits after the guard's check.
func (p Payout) Submit(ctx context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	if err := Check(ctx, "PayoutProvider.Submit"); err != nil {
		return ports.PayoutStatus{}, err
	}
	out, err := p.PayoutProvider.Submit(ctx, r)
	return out, p.observe(err)
}

// Poll polls after the guard's check.
func (p Payout) Poll(ctx context.Context, reference string) (ports.PayoutStatus, error) {
	if err := Check(ctx, "PayoutProvider.Poll"); err != nil {
		return ports.PayoutStatus{}, err
	}
	out, err := p.PayoutProvider.Poll(ctx, reference)
	return out, p.observe(err)
}

// networkPayout is Payout over a provider that also names its network: the decorator keeps
// the provider's optional interface visible to the off-ramp's rail selection.
type networkPayout struct {
	Payout
	ports.NetworkPayout
}

// WrapPayout guards a payout provider, keeping its NetworkPayout side when it has one.
func WrapPayout(p ports.PayoutProvider) ports.PayoutProvider { return WrapPayoutWithHealth(p, "", nil) }

// PayoutHealthName is a payout provider's name in the health report.
func PayoutHealthName(provider string) string { return "payout:" + provider }

// WrapPayoutWithHealth is WrapPayout whose calls also feed h under the provider's name.
func WrapPayoutWithHealth(p ports.PayoutProvider, provider string, h *Health) ports.PayoutProvider {
	if p == nil {
		return nil
	}
	g := Payout{PayoutProvider: p, Health: h, HealthName: PayoutHealthName(provider)}
	if n, ok := p.(ports.NetworkPayout); ok {
		return networkPayout{Payout: g, NetworkPayout: n}
	}
	return g
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
