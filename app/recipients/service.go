package recipients

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// PrepareHeld is the first step of a change that re-evaluates the caller's held payments (a
// verified alias, a credential, a destination): it prepares the recipient.Changed the change
// raises, so its listeners ask what they need (screening verdicts) outside any transaction. A caller that is not a tenant prepares nothing; its use case refuses it.
func (s *Service) PrepareHeld(ctx context.Context, p auth.Principal) error {
	if p.RequireTenant() != nil {
		return nil
	}
	return s.changed.Prepare(ctx, recipient.Changed{Environment: p.Environment, TenantID: p.TenantID})
}

// Deps are the ports and settings of the recipients capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Cipher and SMS serve phone aliases, payout destinations and the texts of claims. Without
	// them those use cases answer FEATURE_NOT_AVAILABLE rather than refuse to start: a
	// deployment may serve wallets and Safe payments without off-ramp.
	Cipher    ports.Cipher
	SMS       ports.SMS
	SMSOutbox ports.SMSOutbox // the sandbox outbox (TEST); nil: the outbox route answers FEATURE_NOT_AVAILABLE
	// AliasBudget bounds phone-alias codes sent and wrong codes per phone, tenant and client
	// IP, and pending aliases per tenant; zero fields take the recipient package's defaults.
	AliasBudget AliasBudget
	// SMSOutboxRetention is how long the sandbox outbox keeps a message (0 = 7 days).
	SMSOutboxRetention time.Duration
	// Changed carries recipient.Changed, raised in the unit of work of a change on the
	// recipient's side (off-ramp payments re-run the composer for the payments held for it).
	Changed *kernel.Subscribers[recipient.Changed]
}

// Service runs the recipient side of "pay a phone number": phone aliases proved by SMS, the
// BUSINESS_IDENTITY credential, payout destinations, and the SMS outbox every text goes through.
type Service struct {
	store              kernel.Units[txView]
	jobs               ports.Jobs
	clock              ports.Clock
	cipher             ports.Cipher
	sms                ports.SMS
	smsOutbox          ports.SMSOutbox
	aliasBudget        AliasBudget
	smsOutboxRetention time.Duration
	changed            *kernel.Subscribers[recipient.Changed]
}

// New checks the wiring, applies the defaults and fails at start-up when a required port is
// missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("recipients", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Changed", Value: d.Changed}); err != nil {
		return nil, err
	}
	s := &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), cipher: d.Cipher, sms: d.SMS,
		smsOutbox: d.SMSOutbox, aliasBudget: d.AliasBudget.withDefaults(), smsOutboxRetention: d.SMSOutboxRetention,
		changed: d.Changed}
	if s.smsOutboxRetention <= 0 {
		s.smsOutboxRetention = DefaultSMSOutboxRetention
	}
	return s, nil
}

// Lookup-hash purposes: a phone hashed for alias lookup never equals any other hash.
const (
	hashPurposePhone = "phone"
	hashPurposeCode  = "phone-code"
	hashPurposeIP    = "ip"
)

// Ready fails closed (FEATURE_NOT_AVAILABLE) when the recipient ports are not wired: aliases,
// destinations, off-ramp payments and claims all need them.
func (s *Service) Ready() error {
	if s.cipher == nil || s.sms == nil {
		return core.E(core.CodeFeatureNotAvailable, "phone aliases and payout destinations are not configured in this deployment")
	}
	return nil
}

// PhoneHash is the keyed lookup hash of an E.164 number, under which verified aliases, payments
// and claims find a phone without storing it in the clear.
func (s *Service) PhoneHash(e164 string) string { return s.cipher.LookupHash(hashPurposePhone, e164) }

// AdoptPhone makes a phone proved elsewhere (a claim's challenge) a verified alias of p's tenant,
// inside the caller's unit of work, of which it takes only the recipients' repository (aliases);
// e164 is the number in the clear, which the alias stores
// encrypted. A number p's tenant already verified is left as it is; one another tenant verified
// is PHONE_ALIAS_TAKEN.
func (s *Service) AdoptPhone(ctx context.Context, aliases ports.RecipientRepo, p auth.Principal, phoneHash, masked string, e164 []byte, now time.Time) error {
	owner, err := aliases.FindVerifiedAlias(ctx, p.Environment, phoneHash)
	switch {
	case err == nil && owner.TenantID == p.TenantID:
		return nil
	case err == nil:
		return core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
	case !core.HasCode(err, recipient.CodePhoneAliasNotFound):
		return err
	}
	alias := recipient.Alias{ID: core.NewID("pha"), TenantID: p.TenantID, Environment: p.Environment, PhoneHash: phoneHash,
		Masked: masked, Status: recipient.AliasPending, CodeExpiresAt: now, CreatedAt: now}
	if alias.PhoneCiphertext, err = s.cipher.Encrypt(e164, "phone_alias:"+alias.ID); err != nil {
		return err
	}
	if err := aliases.CreateAlias(ctx, alias); err != nil {
		return err
	}
	// Verified by update, as an SMS-verified alias is: the unique index on verified numbers
	// answers a tenant that verified it meanwhile with PHONE_ALIAS_TAKEN.
	alias.Status, alias.VerifiedAt = recipient.AliasVerified, &now
	return aliases.UpdateAlias(ctx, alias)
}
