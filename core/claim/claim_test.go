package claim

import (
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

// specRows is docs/api.md's Claim table, row by row.
var specRows = []Row{
	{StatusOpen, TrigLock, StatusLocked},
	{StatusLocked, TrigRelease, StatusReleased},
	{StatusLocked, TrigGraceRefund, StatusRefunded},
	{StatusOpen, TrigExpiry, StatusExpired},
	{StatusExpired, TrigRefund, StatusRefunded},
	{StatusExpired, TrigCancel, StatusCanceled},
}

var allStatuses = []Status{StatusOpen, StatusLocked, StatusReleased, StatusRefunded, StatusExpired, StatusCanceled}
var allTriggers = []Trigger{TrigLock, TrigRelease, TrigGraceRefund, TrigExpiry, TrigRefund, TrigCancel}

func TestTable_SpecRowByRow(t *testing.T) {
	for _, want := range specRows {
		got, err := Next(want.From, want.Trigger)
		if err != nil || got != want.To {
			t.Fatalf("%s %q: got %s %v, want %s", want.From, want.Trigger, got, err, want.To)
		}
	}
	if len(Table) != len(specRows) {
		t.Fatalf("table has %d rows, docs/api.md %d", len(Table), len(specRows))
	}
}

func TestTable_EverythingElseRefused(t *testing.T) {
	for _, s := range allStatuses {
		for _, tr := range allTriggers {
			inSpec := false
			for _, r := range specRows {
				inSpec = inSpec || (r.From == s && r.Trigger == tr)
			}
			_, err := Next(s, tr)
			if inSpec != (err == nil) {
				t.Fatalf("%s %q: err %v, in spec %v", s, tr, err, inSpec)
			}
			if err != nil && !strings.Contains(err.Error(), string(s)) {
				t.Fatalf("refusal should name the status: %v", err)
			}
		}
	}
}

func TestTable_AbsorbingStatusesHaveNoExit(t *testing.T) {
	for _, r := range Table {
		if r.From.Absorbing() {
			t.Fatalf("row %+v leaves absorbing %s", r, r.From)
		}
	}
}

func newClaim(now time.Time) Claim {
	return New(core.EnvTest, "ofp_1", "ten_1", 5_000_000, 84532, "eip155:84532", "asset", "hash", "+1******4567", []byte{1}, 0, now)
}

func TestNew_OpaqueIDsAndMetadataHash(t *testing.T) {
	now := time.Now().UTC()
	a, b := newClaim(now), newClaim(now)
	if a.OnchainID == b.OnchainID || len(a.OnchainID) != 66 || !strings.HasPrefix(a.OnchainID, "0x") {
		t.Fatalf("on-chain ids must be fresh 0x+64 hex: %s %s", a.OnchainID, b.OnchainID)
	}
	if _, err := Bytes32(a.OnchainID); err != nil {
		t.Fatal(err)
	}
	if a.MetadataHash != MetadataHash(a.OnchainID, "ofp_1") || a.MetadataHash == b.MetadataHash {
		t.Fatalf("metadata hash must cover the claim id and payment id only")
	}
	if !a.ExpiresAt.Equal(now.Add(DefaultLifetime)) || a.Status != StatusOpen || a.Funded {
		t.Fatalf("unexpected new claim %+v", a)
	}
}

func TestApplyEvent_HappyPathAndReplays(t *testing.T) {
	now := time.Now().UTC()
	c := newClaim(now)
	if out := c.ApplyEvent(Event{Kind: EventFunded, TxHash: "0xf"}, now); !out.FundedNow || !c.Funded || c.Status != StatusOpen {
		t.Fatalf("funded: %+v %+v", out, c)
	}
	if out := c.ApplyEvent(Event{Kind: EventFunded}, now); out.Changed || out.FundedNow {
		t.Fatalf("a replayed funding changes nothing: %+v", out)
	}
	if out := c.ApplyEvent(Event{Kind: EventLocked, TxHash: "0xl"}, now); c.Status != StatusLocked || out.To != StatusLocked {
		t.Fatalf("lock: %+v", out)
	}
	if out := c.ApplyEvent(Event{Kind: EventReleased, TxHash: "0xr"}, now); c.Status != StatusReleased || c.ReleaseTxHash != "0xr" || !out.Changed {
		t.Fatalf("release: %+v", out)
	}
	for _, k := range []EventKind{EventReleased, EventRefunded, EventCanceled, EventLocked, EventFunded} {
		if out := c.ApplyEvent(Event{Kind: k, TxHash: "0xz"}, now); out.Changed || c.Status != StatusReleased || c.RefundTxHash != "" {
			t.Fatalf("%s after RELEASED changed the claim: %+v", k, c)
		}
	}
}

func TestApplyEvent_ReorderedReleaseImpliesLock(t *testing.T) {
	now := time.Now().UTC()
	c := newClaim(now)
	out := c.ApplyEvent(Event{Kind: EventReleased, TxHash: "0xr"}, now)
	if c.Status != StatusReleased || !c.Funded || !out.FundedNow || out.From != StatusOpen {
		t.Fatalf("release before lock: %+v %+v", out, c)
	}
	if out := c.ApplyEvent(Event{Kind: EventLocked}, now); out.Changed {
		t.Fatalf("late lock changed a released claim")
	}
}

func TestApplyEvent_ExpiryPaths(t *testing.T) {
	now := time.Now().UTC()
	funded := newClaim(now)
	funded.ApplyEvent(Event{Kind: EventFunded}, now)
	if err := funded.Apply(TrigExpiry, now); err != nil {
		t.Fatal(err)
	}
	if out := funded.ApplyEvent(Event{Kind: EventCanceled}, now); out.Changed {
		t.Fatalf("a funded claim is never cancelled")
	}
	if out := funded.ApplyEvent(Event{Kind: EventRefunded, TxHash: "0xrf"}, now); funded.Status != StatusRefunded || funded.RefundTxHash != "0xrf" || !out.Changed {
		t.Fatalf("refund: %+v", funded)
	}
	if out := funded.ApplyEvent(Event{Kind: EventReleased}, now); out.Changed || funded.ReleaseTxHash != "" {
		t.Fatalf("a refunded claim is never released")
	}

	unfunded := newClaim(now)
	if out := unfunded.ApplyEvent(Event{Kind: EventCanceled, TxHash: "0xc"}, now); unfunded.Status != StatusCanceled || out.From != StatusOpen {
		t.Fatalf("cancel before expiry recorded: %+v", unfunded)
	}

	locked := newClaim(now)
	locked.ApplyEvent(Event{Kind: EventLocked}, now)
	if out := locked.ApplyEvent(Event{Kind: EventRefunded, TxHash: "0xg"}, now); locked.Status != StatusRefunded || !out.Changed {
		t.Fatalf("grace refund of a stuck lock: %+v", locked)
	}
}

func TestRefundable_FundsWinOverExpiry(t *testing.T) {
	now := time.Now().UTC()
	c := newClaim(now)
	grace := time.Hour
	if c.Refundable(now, grace) {
		t.Fatal("refundable before expiry")
	}
	if !c.Refundable(c.ExpiresAt, grace) {
		t.Fatal("an open claim is refundable at expiry")
	}
	c.RedeemedAt = &now
	for _, s := range []Status{StatusOpen, StatusLocked} {
		c.Status = s
		if c.Refundable(c.ExpiresAt, grace) || !c.Refundable(c.ExpiresAt.Add(grace), grace) {
			t.Fatalf("a redeemed %s claim is refundable only after the grace period", s)
		}
	}
	c.Status = StatusReleased
	if c.Refundable(c.ExpiresAt.Add(grace), grace) {
		t.Fatal("a released claim is never refundable")
	}
}

func TestChallenge_FiveAttemptsThenCancelled(t *testing.T) {
	now := time.Now().UTC()
	ch := Challenge{Status: ChallengePending, AttemptsRemaining: ChallengeAttempts, ExpiresAt: now.Add(ChallengeLifetime)}
	for i := ChallengeAttempts - 1; i >= 1; i-- {
		err := ch.Verify(false, now)
		e, ok := err.(*core.Error)
		if !ok || e.Code != CodeInvalidCode || e.Details["attemptsRemaining"] != i {
			t.Fatalf("attempt: %v", err)
		}
	}
	if err := ch.Verify(false, now); err.(*core.Error).Code != CodeTooManyAttempts || ch.Status != ChallengeCancelled {
		t.Fatalf("fifth wrong code: %v %s", err, ch.Status)
	}
	if err := ch.Verify(true, now); err.(*core.Error).Code != CodeTooManyAttempts || ch.Status != ChallengeCancelled {
		t.Fatalf("a cancelled challenge never verifies")
	}
}

func TestChallenge_VerifyAndExpiry(t *testing.T) {
	now := time.Now().UTC()
	ch := Challenge{ClaimID: "clm_1", Status: ChallengePending, AttemptsRemaining: ChallengeAttempts, ExpiresAt: now.Add(time.Minute)}
	if err := ch.Redeemable("clm_1", now); err == nil {
		t.Fatal("a pending challenge is not redeemable")
	}
	if err := ch.Verify(true, now); err != nil || ch.Status != ChallengeVerified {
		t.Fatalf("verify: %v", err)
	}
	if err := ch.Verify(true, now); err != nil {
		t.Fatalf("repeat verify: %v", err)
	}
	if err := ch.Redeemable("clm_2", now); err == nil {
		t.Fatal("another claim's challenge is not redeemable")
	}
	if err := ch.Redeemable("clm_1", now); err != nil {
		t.Fatal(err)
	}
	if err := ch.Redeemable("clm_1", now.Add(time.Minute)); err == nil || err.(*core.Error).Code != CodeChallengeExpired {
		t.Fatalf("a verified challenge past its expiry is not redeemable: %v", err)
	}
	late := Challenge{Status: ChallengePending, AttemptsRemaining: 5, ExpiresAt: now}
	if err := late.Verify(true, now); err.(*core.Error).Code != CodeChallengeExpired {
		t.Fatalf("expired: %v", err)
	}
}

func TestLink_TokensAndUsability(t *testing.T) {
	tok, hash := NewToken()
	tok2, _ := NewToken()
	if tok == tok2 || !WellFormedToken(tok) || HashToken(tok) != hash || strings.Contains(hash, tok) {
		t.Fatalf("tokens: %s %s", tok, hash)
	}
	for _, bad := range []string{"", "short", tok + "x", strings.Repeat("!", len(tok))} {
		if WellFormedToken(bad) {
			t.Fatalf("%q accepted", bad)
		}
	}
	now := time.Now().UTC()
	l := Link{ExpiresAt: now.Add(time.Hour)}
	if err := l.Usable(now); err != nil {
		t.Fatal(err)
	}
	used := l
	used.UsedAt = &now
	if err := used.Usable(now); err.(*core.Error).Code != CodeLinkUsed {
		t.Fatalf("used: %v", err)
	}
	sup := l
	sup.SupersededAt = &now
	if err := sup.Usable(now); err.(*core.Error).Code != CodeClaimNotFound {
		t.Fatalf("superseded: %v", err)
	}
	if err := l.Usable(l.ExpiresAt); err.(*core.Error).Code != CodeLinkExpired {
		t.Fatalf("expired: %v", err)
	}
}
