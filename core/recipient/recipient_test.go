package recipient

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func code(err error) core.Code {
	var e *core.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestParsePhoneAndMask(t *testing.T) {
	p, err := ParsePhone("phone", "+14155552671")
	if err != nil || p.E164 != "+14155552671" || p.Region != "US" {
		t.Fatalf("parse: %+v %v", p, err)
	}
	for _, bad := range []string{"", "4155552671", "+1 415 555 2671", "+1415555267a", "+999123", "+1555"} {
		if _, err := ParsePhone("phone", bad); code(err) != core.CodeValidationFailed {
			t.Fatalf("%q accepted", bad)
		}
	}
	m := MaskPhone("+14155552671")
	if m != "+1 ••••••••71" || strings.Contains(m, "4155") {
		t.Fatalf("mask %q", m)
	}
}

func TestAliasVerify(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := Alias{Status: AliasPending, CodeHash: "h", CodeExpiresAt: now.Add(CodeLifetime)}
	t.Run("success", func(t *testing.T) {
		out, err := a.Verify(true, now)
		if err != nil || out.Status != AliasVerified || out.VerifiedAt == nil || out.CodeHash != "" {
			t.Fatalf("%+v %v", out, err)
		}
	})
	t.Run("five wrong codes fail the alias", func(t *testing.T) {
		cur := a
		for i := 1; i <= MaxCodeAttempts; i++ {
			var err error
			cur, err = cur.Verify(false, now)
			want := CodePhoneCodeInvalid
			if i == MaxCodeAttempts {
				want = CodePhoneCodeTooManyTries
			}
			if code(err) != want || cur.Attempts != i {
				t.Fatalf("attempt %d: %v %+v", i, err, cur)
			}
		}
		if cur.Status != AliasFailed {
			t.Fatalf("status %s", cur.Status)
		}
		if _, err := cur.Verify(true, now); code(err) != CodePhoneAliasNotVerifying {
			t.Fatalf("right code after failure: %v", err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		if _, err := a.Verify(true, now.Add(CodeLifetime)); code(err) != CodePhoneCodeExpired {
			t.Fatalf("%v", err)
		}
	})
	if !ValidCodeFormat("012345") || ValidCodeFormat("12345") || ValidCodeFormat("12345a") {
		t.Fatal("code format")
	}
}

func TestValidateDestination(t *testing.T) {
	ok := []struct {
		name   string
		in     DestinationInput
		masked string
	}{
		{"onchain base sepolia", DestinationInput{Type: "ONCHAIN_WALLET", Asset: "USDC", Network: "eip155:84532", Address: "0xAbCdEf0123456789abcdef0123456789ABCDEF01"}, "USDC on eip155:84532 0xAbCd…EF01"},
		{"onchain solana", DestinationInput{Type: "ONCHAIN_WALLET", Asset: "USDC", Network: "solana", Address: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"}, "USDC on solana 7EcDhS…FLtV"},
		{"app wallet A email", DestinationInput{Type: "APP_WALLET_A", Email: "jane@example.com"}, "j•••@example.com"},
		{"app wallet A phone", DestinationInput{Type: "APP_WALLET_A", Phone: "+14155552671"}, "+1 ••••••••71"},
		{"app wallet B handle", DestinationInput{Type: "APP_WALLET_B", Handle: "jane"}, "@j•••"},
		{"app wallet B US phone", DestinationInput{Type: "APP_WALLET_B", Phone: "+14155552671"}, "+1 ••••••••71"},
		{"ACH", DestinationInput{Type: "US_BANK_ACH", RoutingNumber: "021000021", AccountNumber: "123456789"}, "ACH ••••6789"},
		{"SEPA", DestinationInput{Type: "SEPA", IBAN: "DE89 3704 0044 0532 0130 00"}, "DE•• •••• 3000"},
		{"service balance", DestinationInput{Type: "SERVICE_BALANCE"}, "Service balance"},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			_, id, masked, err := ValidateDestination(c.in)
			if err != nil || masked != c.masked {
				t.Fatalf("%q %v", masked, err)
			}
			if c.in.Address != "" && id.Address != c.in.Address {
				t.Fatal("address not stored verbatim")
			}
		})
	}
	bad := []struct {
		name string
		in   DestinationInput
		want core.Code
	}{
		{"onchain wrong shape", DestinationInput{Type: "ONCHAIN_WALLET", Asset: "USDC", Network: "eip155:84532", Address: "0x123"}, core.CodeValidationFailed},
		{"onchain unknown network", DestinationInput{Type: "ONCHAIN_WALLET", Asset: "USDC", Network: "btc", Address: "0xAbCdEf0123456789abcdef0123456789ABCDEF01"}, core.CodeValidationFailed},
		{"A both", DestinationInput{Type: "APP_WALLET_A", Email: "a@b.co", Phone: "+14155552671"}, core.CodeValidationFailed},
		{"A neither", DestinationInput{Type: "APP_WALLET_A"}, core.CodeValidationFailed},
		{"A handle", DestinationInput{Type: "APP_WALLET_A", Email: "a@b.co", Handle: "x"}, core.CodeValidationFailed},
		{"B both", DestinationInput{Type: "APP_WALLET_B", Phone: "+14155552671", Handle: "jane"}, core.CodeValidationFailed},
		{"B non-US phone", DestinationInput{Type: "APP_WALLET_B", Phone: "+447911123456"}, CodeDestinationRailConstraint},
		{"B EUR", DestinationInput{Type: "APP_WALLET_B", Handle: "jane", Currency: "EUR"}, CodeDestinationRailConstraint},
		{"B GB", DestinationInput{Type: "APP_WALLET_B", Handle: "jane", Country: "GB"}, CodeDestinationRailConstraint},
		{"C", DestinationInput{Type: "APP_WALLET_C"}, core.CodeValidationFailed},
		{"unknown", DestinationInput{Type: "PAYPAL"}, CodeDestinationRailNotAvailable},
		{"ACH checksum", DestinationInput{Type: "US_BANK_ACH", RoutingNumber: "021000022", AccountNumber: "123456789"}, core.CodeValidationFailed},
		{"IBAN checksum", DestinationInput{Type: "SEPA", IBAN: "DE89370400440532013001"}, core.CodeValidationFailed},
		{"service balance with fields", DestinationInput{Type: "SERVICE_BALANCE", Email: "a@b.co"}, core.CodeValidationFailed},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if _, _, _, err := ValidateDestination(c.in); code(err) != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
}

func TestAlias_Reverification(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	verified := Alias{Status: AliasVerified, VerifiedAt: &t0}
	if _, err := (Alias{Status: AliasPending}).StartReverification("h", t0); err == nil {
		t.Fatal("a PENDING alias started a re-verification")
	}
	if _, err := verified.Verify(true, t0); err == nil {
		t.Fatal("a VERIFIED alias without a code verified again")
	}
	now := t0.Add(400 * 24 * time.Hour)
	a, err := verified.StartReverification("h", now)
	if err != nil || !a.Reverifying() || a.Status != AliasVerified {
		t.Fatalf("start: %+v %v", a, err)
	}
	ok, err := a.Verify(true, now.Add(time.Minute))
	if err != nil || ok.Reverifying() || !ok.VerifiedAt.Equal(now.Add(time.Minute)) || ok.Status != AliasVerified {
		t.Fatalf("match: %+v %v", ok, err)
	}
	wrong := a
	for range MaxCodeAttempts {
		wrong, err = wrong.Verify(false, now)
	}
	if code(err) != CodePhoneCodeTooManyTries || wrong.Status != AliasVerified || wrong.Reverifying() || !wrong.VerifiedAt.Equal(t0) {
		t.Fatalf("too many wrong codes end the re-verification only: %+v %v", wrong, err)
	}
	if _, err := a.Verify(true, now.Add(CodeLifetime)); code(err) != CodePhoneCodeExpired {
		t.Fatalf("expired code: %v", err)
	}
}

// TestNewCode: a code is six decimal digits.
func TestNewCode(t *testing.T) {
	for range 50 {
		if c := NewCode(); len(c) != 6 || strings.Trim(c, "0123456789") != "" {
			t.Fatalf("NewCode() = %q, want six digits", c)
		}
	}
}
