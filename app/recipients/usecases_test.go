package recipients_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// The recipients use cases run on ports/fake (whose recipient repository passes the same
// contract suite as Postgres): each case states a rule and the envelope code or state it
// leads to.

// heldCounter counts the recipient.Changed events a use case raises in its unit of work (off-ramp
// payments re-evaluate the recipient's held payments on each).
type heldCounter struct{ n int }

func (h *heldCounter) listen(bus *kernel.Subscribers[recipient.Changed]) {
	bus.Subscribe(func(_ context.Context, tx ports.Tx, _ recipient.Changed) error {
		if tx == nil {
			return errors.New("recipient.Changed raised outside a unit of work")
		}
		h.n++
		return nil
	})
}

type world struct {
	store *fake.Store
	svc   *recipients.Service
	held  *heldCounter
}

func newWorld(t *testing.T, configured bool) *world {
	t.Helper()
	w := &world{store: fake.NewStore(), held: &heldCounter{}}
	changed := &kernel.Subscribers[recipient.Changed]{}
	w.held.listen(changed)
	deps := recipients.Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Changed: changed,
		Clock: &fake.Clock{At: fixedNow}}
	if configured {
		deps.Cipher, deps.SMS = fake.Cipher{}, &fake.SMS{}
	}
	svc, err := recipients.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	return w
}

func principal(tenantID string, env core.Environment, scopes ...auth.Scope) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: tenantID, Environment: env, Scopes: scopes}
}

var (
	owner   = principal("ten_a", core.EnvTest, auth.ScopeRoot)
	phone   = "+14155550101"
	onchain = recipient.DestinationInput{Type: "ONCHAIN_WALLET", Asset: "USDC", Network: "eip155:84532",
		Address: "0x00000000000000000000000000000000000000c3"}
)

// wantCode fails unless err carries code, and returns the envelope's details.
func wantCode(t *testing.T, err error, code core.Code) map[string]any {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
	return e.Details
}

// sentCode reads the code out of the newest queued SMS, as the recipient's phone would.
func (w *world) sentCode(t *testing.T) string {
	t.Helper()
	jobs := w.store.Jobs()
	if len(jobs) == 0 {
		t.Fatal("no SMS was queued")
	}
	args, ok := jobs[len(jobs)-1].Args.(recipients.SMSSendArgs)
	if !ok {
		t.Fatalf("the newest job is %T, not an SMS", jobs[len(jobs)-1].Args)
	}
	body, err := fake.Cipher{}.Decrypt(args.BodyCiphertext, "sms_job:"+args.IdempotencyKey)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`\d{6}`).FindString(string(body))
}

// TestRecipientUseCases_RefuseAndChangeNothing: bad input, a missing scope, LIVE where only
// TEST serves, a deployment without SMS, a missing credential and another tenant's objects each
// answer their code and commit nothing.
func TestRecipientUseCases_RefuseAndChangeNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		configured bool
		run        func(w *world) error
		code       core.Code
	}{
		{"a malformed phone", true, func(w *world) error {
			_, err := w.svc.CreatePhoneAlias(ctx, owner, recipients.CreateAliasInput{Phone: "555"})
			return err
		}, core.CodeValidationFailed},
		{"a key without identity:write", true, func(w *world) error {
			_, err := w.svc.CreatePhoneAlias(ctx, principal("ten_a", core.EnvTest, auth.ScopeIdentityRead), recipients.CreateAliasInput{Phone: phone})
			return err
		}, core.CodeInsufficientScope},
		{"a deployment without SMS", false, func(w *world) error {
			_, err := w.svc.CreatePhoneAlias(ctx, owner, recipients.CreateAliasInput{Phone: phone})
			return err
		}, core.CodeFeatureNotAvailable},
		{"a code that is not 6 digits", true, func(w *world) error {
			_, err := w.svc.VerifyPhoneAlias(ctx, owner, "pha_x", "12", "")
			return err
		}, core.CodeValidationFailed},
		{"another tenant's alias", true, func(w *world) error {
			a, err := w.svc.CreatePhoneAlias(ctx, principal("ten_b", core.EnvTest, auth.ScopeRoot), recipients.CreateAliasInput{Phone: phone})
			if err != nil {
				return err
			}
			_, err = w.svc.VerifyPhoneAlias(ctx, owner, a.ID, "123456", "")
			return err
		}, recipient.CodePhoneAliasNotFound},
		{"a sandbox credential in LIVE", true, func(w *world) error {
			_, err := w.svc.SetSandboxCredential(ctx, principal("ten_a", core.EnvLive, auth.ScopeRoot), "ACTIVE")
			return err
		}, core.CodeSandboxOnly},
		{"an unknown credential status", true, func(w *world) error {
			_, err := w.svc.SetSandboxCredential(ctx, owner, "GOLD")
			return err
		}, core.CodeValidationFailed},
		{"a destination without an ACTIVE credential", true, func(w *world) error {
			_, err := w.svc.CreateDestination(ctx, owner, onchain)
			return err
		}, recipient.CodeCredentialRequired},
		{"another tenant's destination", true, func(w *world) error {
			other := principal("ten_b", core.EnvTest, auth.ScopeRoot)
			if _, err := w.svc.SetSandboxCredential(ctx, other, "ACTIVE"); err != nil {
				return err
			}
			d, err := w.svc.CreateDestination(ctx, other, onchain)
			if err != nil {
				return err
			}
			_, err = w.svc.GetDestination(ctx, owner, d.ID)
			return err
		}, recipient.CodeDestinationNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.configured)
			wantCode(t, tc.run(w), tc.code)
			aliases, _, _ := w.svc.ListPhoneAliases(ctx, owner, ports.Page{Take: 10})
			dests, _, _ := w.svc.ListDestinations(ctx, owner, ports.Page{Take: 10})
			if len(aliases) != 0 || len(dests) != 0 {
				t.Errorf("a refused call left %d aliases and %d destinations for the caller", len(aliases), len(dests))
			}
		})
	}
}

// TestRecipientUseCases_AliasVerification: a new alias is PENDING and texts one code; a wrong
// code is PHONE_CODE_INVALID counting down; the right one verifies and re-evaluates held
// payments; the verified number is then another tenant's PHONE_ALIAS_TAKEN.
func TestRecipientUseCases_AliasVerification(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, true)
	a, err := w.svc.CreatePhoneAlias(ctx, owner, recipients.CreateAliasInput{Phone: phone, ClientIP: "192.0.2.1"})
	if err != nil || a.Status != recipient.AliasPending || len(w.store.Jobs()) != 1 {
		t.Fatalf("CreatePhoneAlias = %+v, %v; %d SMS queued", a, err, len(w.store.Jobs()))
	}
	code := w.sentCode(t)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	_, err = w.svc.VerifyPhoneAlias(ctx, owner, a.ID, wrong, "192.0.2.1")
	if d := wantCode(t, err, recipient.CodePhoneCodeInvalid); d["attemptsRemaining"] != recipient.MaxCodeAttempts-1 {
		t.Errorf("details = %v", d)
	}
	got, err := w.svc.VerifyPhoneAlias(ctx, owner, a.ID, code, "192.0.2.1")
	if err != nil || got.Status != recipient.AliasVerified || w.held.n != 1 {
		t.Fatalf("verify with the right code = %+v, %v; held re-evaluated %d times", got, err, w.held.n)
	}
	_, err = w.svc.CreatePhoneAlias(ctx, principal("ten_b", core.EnvTest, auth.ScopeRoot), recipients.CreateAliasInput{Phone: phone})
	wantCode(t, err, recipient.CodePhoneAliasTaken)
	_, err = w.svc.CreatePhoneAlias(ctx, owner, recipients.CreateAliasInput{Phone: phone})
	wantCode(t, err, core.CodeInvalidState)
}

// TestRecipientUseCases_TooManyWrongCodes: the last allowed wrong code fails the alias.
func TestRecipientUseCases_TooManyWrongCodes(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, true)
	a, err := w.svc.CreatePhoneAlias(ctx, owner, recipients.CreateAliasInput{Phone: phone})
	if err != nil {
		t.Fatal(err)
	}
	code, wrong := w.sentCode(t), "000000"
	if code == wrong {
		wrong = "111111"
	}
	for i := 1; i < recipient.MaxCodeAttempts; i++ {
		_, err = w.svc.VerifyPhoneAlias(ctx, owner, a.ID, wrong, "")
		wantCode(t, err, recipient.CodePhoneCodeInvalid)
	}
	_, err = w.svc.VerifyPhoneAlias(ctx, owner, a.ID, wrong, "")
	wantCode(t, err, recipient.CodePhoneCodeTooManyTries)
	_, err = w.svc.VerifyPhoneAlias(ctx, owner, a.ID, code, "")
	wantCode(t, err, recipient.CodePhoneAliasNotVerifying)
}

// TestRecipientUseCases_CredentialAndDestinations: an ACTIVE credential re-evaluates held
// payments and opens destinations; a destination stores its identifier sealed and lists
// oldest first.
func TestRecipientUseCases_CredentialAndDestinations(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, true)
	if _, ok, err := w.svc.GetCredential(ctx, owner); ok || err != nil {
		t.Fatalf("GetCredential before any = %v, %v", ok, err)
	}
	c, err := w.svc.SetSandboxCredential(ctx, owner, "ACTIVE")
	if err != nil || c.Status != recipient.CredentialActive || w.held.n != 1 {
		t.Fatalf("SetSandboxCredential = %+v, %v; held re-evaluated %d times", c, err, w.held.n)
	}
	first, err := w.svc.CreateDestination(ctx, owner, onchain)
	if err != nil || first.Status != recipient.DestActive || len(first.IdentifierCiphertext) == 0 || w.held.n != 2 {
		t.Fatalf("CreateDestination = %+v, %v", first, err)
	}
	second, err := w.svc.CreateDestination(ctx, owner, recipient.DestinationInput{Type: "SERVICE_BALANCE"})
	if err != nil {
		t.Fatal(err)
	}
	list, total, err := w.svc.ListDestinations(ctx, owner, ports.Page{Take: 10})
	if err != nil || total != 2 || list[0].ID != first.ID || list[1].ID != second.ID {
		t.Errorf("ListDestinations = %d %v, %v; want oldest first", total, list, err)
	}
	ident, err := w.svc.DestinationIdentifier(first)
	if err != nil || ident.Address != onchain.Address {
		t.Errorf("DestinationIdentifier = %+v, %v", ident, err)
	}
}

var fixedNow = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
