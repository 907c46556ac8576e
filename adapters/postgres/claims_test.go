package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// claimDB is one migrated database shared by the claim repository's subtests. Each subtest
// works in its own tenants, claims, hashes and chain ids, so they run in parallel.
type claimDB struct {
	db    *bun.DB
	store *postgres.Store
}

func TestClaimRepo(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s := claimDB{db: db, store: postgres.NewStore(db)}

	for _, tc := range []struct {
		name string
		test func(*testing.T, claimDB)
	}{
		{"claim round trip keeps every field", testClaimRoundTrip},
		{"a second claim for one payment is INVALID_STATE", testClaimPerPayment},
		{"FindClaimForSender hides other tenants and envs", testFindClaimForSender},
		{"LockClaim and LockClaimByOnchainID lock the row", testLockClaim},
		{"DueClaimIDs: OPEN at expiry, LOCKED after grace", testDueClaimIDs},
		{"link lifecycle: create, lock, use, supersede live", testLinkLifecycle},
		{"challenge create, lock within its claim, update", testChallenges},
		{"CountChallengesSince by phone or by IP from since", testCountChallenges},
		{"RecordEscrowEvent stores a log once", testRecordEscrowEvent},
		{"escrow cursor: created at 0, saved, locked", testEscrowCursor},
		{"escrow cursor: concurrent creators share one row", testEscrowCursorConcurrentCreators},
		{"escrow cursor: many simultaneous creators, one row", testEscrowCursorManyCreators},
		{"updates of missing rows are not found", testUpdatesOfMissingRows},
		{"CountChallengesSince without a hash is refused", testCountChallengesNeedsHash},
		{"timestamps read back in UTC whatever zone was written", testTimestampsUTC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, s)
		})
	}
}

// testChainID is the chain claims default to (Base Sepolia).
const testChainID = 84532

// now is the current time as Postgres keeps it (microseconds, UTC).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// randomChainID is a chain id no other subtest uses.
func randomChainID(t *testing.T) int64 {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return 1_000_000 + (int64(b[0])<<16 | int64(b[1])<<8 | int64(b[2]))
}

// inTx runs fn in a unit of work bounded as the service bounds its units.
func (s claimDB) inTx(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.store.InTx(ctx, fn); err != nil {
		t.Fatal(err)
	}
}

// txErr runs fn in its own bounded transaction and returns its error.
func (s claimDB) txErr(fn func(ctx context.Context, r ports.ClaimRepo) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, tx.Claims()) })
}

func (s claimDB) newTenant(t *testing.T) string {
	t.Helper()
	suffix := randomHex(t, 6)
	tn := tenant.Tenant{ID: core.NewID(core.PrefixTenant), Slug: "claims-" + suffix, Name: "Claims " + suffix,
		OwnerUserID: "user_" + suffix, CreatedAt: now()}
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Tenants().CreateTenant(ctx, tn) })
	return tn.ID
}

// newPayment stores the off-ramp payment a claim belongs to (offramp_claims.payment_id
// references it).
func (s claimDB) newPayment(t *testing.T, env core.Environment, senderTenantID string) string {
	t.Helper()
	at := now()
	p := offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: env, SenderTenantID: senderTenantID,
		RecipientPhoneHash: randomHex(t, 32), RecipientPhoneMasked: "+1******1234", SourceChainKey: "base-sepolia",
		SourceAssetID: "usdc", SourceAmountBaseUnits: 25_000_000, FundingMode: "INTERNAL_BALANCE",
		SpeedPreference: offramp.SpeedFastest, Status: offramp.StatusPendingClaim, CreatedAt: at, UpdatedAt: at}
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Offramp().CreatePayment(ctx, p) })
	return p.ID
}

// newClaim builds a claim of a fresh payment, lets adjust change it, and stores it.
func (s claimDB) newClaim(t *testing.T, env core.Environment, senderTenantID string, adjust func(*claim.Claim)) claim.Claim {
	t.Helper()
	c := claim.New(env, s.newPayment(t, env, senderTenantID), senderTenantID, 25_000_000, testChainID, "base-sepolia",
		"usdc", randomHex(t, 32), "+1******1234", []byte("ciphertext-"+randomHex(t, 8)), 0, now())
	if adjust != nil {
		adjust(&c)
	}
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Claims().CreateClaim(ctx, c) })
	return c
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if e.Message == "" {
		t.Fatalf("error %s has no message", code)
	}
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// assertRowLocked checks, from another connection, that the rows query selects are locked by
// a transaction still open (FOR UPDATE NOWAIT fails with lock_not_available).
func (s claimDB) assertRowLocked(t *testing.T, query string, args ...any) {
	t.Helper()
	_, err := s.db.ExecContext(context.Background(), query+" FOR UPDATE NOWAIT", args...)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("%s: want the row locked (55P03), got %v", query, err)
	}
}

func ptr(t time.Time) *time.Time { return &t }

func testClaimRoundTrip(t *testing.T, s claimDB) {
	sender, recipient := s.newTenant(t), s.newTenant(t)
	at := now()
	c := s.newClaim(t, core.EnvTest, sender, func(c *claim.Claim) {
		c.RecipientTenantID = recipient
		c.Status, c.Funded = claim.StatusLocked, true
		c.FundTxHash, c.LockTxHash = "0x"+randomHex(t, 32), "0x"+randomHex(t, 32)
		c.ReleaseTxHash, c.RefundTxHash, c.CancelTxHash = "0x"+randomHex(t, 32), "0x"+randomHex(t, 32), "0x"+randomHex(t, 32)
		c.DecisionHash = "0x" + randomHex(t, 32)
		c.RedeemedAt, c.ResendCount, c.ResendWindowStart = ptr(at.Add(time.Minute)), 2, ptr(at.Add(-time.Hour))
		c.UpdatedAt = at.Add(2 * time.Minute)
	})
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().FindClaimForSender(ctx, core.EnvTest, sender, c.ID)
		if err != nil {
			return err
		}
		equal(t, "claim read back", got, c)
		return nil
	})

	// Every column an update may change, including back to null.
	c.RecipientTenantID, c.Status, c.Funded = "", claim.StatusReleased, false
	c.FundTxHash, c.LockTxHash, c.ReleaseTxHash, c.RefundTxHash, c.CancelTxHash, c.DecisionHash = "", "", "", "", "", ""
	c.RedeemedAt, c.ResendWindowStart, c.ResendCount = nil, nil, 0
	c.PhoneMasked, c.PhoneCiphertext, c.ChainKey, c.AssetID = "+44*****9876", []byte("other"), "base", "usdc-2"
	c.ExpiresAt, c.UpdatedAt = at.Add(48*time.Hour), at.Add(time.Hour)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
			return err
		}
		got, err := tx.Claims().LockClaim(ctx, c.ID)
		if err != nil {
			return err
		}
		equal(t, "claim after update", got, c)
		return nil
	})
}

func testClaimPerPayment(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	first := s.newClaim(t, core.EnvTest, sender, nil)
	second := claim.New(core.EnvTest, first.PaymentID, sender, 1, testChainID, "base-sepolia", "usdc", "phone", "+1***",
		[]byte{1}, 0, now())
	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error { return r.CreateClaim(ctx, second) })
	wantCode(t, err, core.CodeInvalidState)
}

func testFindClaimForSender(t *testing.T, s claimDB) {
	sender, other := s.newTenant(t), s.newTenant(t)
	c := s.newClaim(t, core.EnvTest, sender, nil)
	live := s.newClaim(t, core.EnvLive, sender, nil)
	for _, tc := range []struct {
		name         string
		env          core.Environment
		tenantID, id string
	}{
		{"another tenant's claim", core.EnvTest, other, c.ID},
		{"the sender's claim in the other environment", core.EnvLive, sender, c.ID},
		{"the sender's LIVE claim with a TEST key", core.EnvTest, sender, live.ID},
		{"an unknown id", core.EnvTest, sender, core.NewID(core.PrefixClaim)},
	} {
		err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.FindClaimForSender(ctx, tc.env, tc.tenantID, tc.id)
			return err
		})
		if err == nil {
			t.Fatalf("%s: found", tc.name)
		}
		wantCode(t, err, claim.CodeClaimNotFound)
	}
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().FindClaimForSender(ctx, core.EnvLive, sender, live.ID)
		if err == nil {
			equal(t, "LIVE claim", got, live)
		}
		return err
	})
}

func testLockClaim(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	c := s.newClaim(t, core.EnvTest, sender, nil)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().LockClaim(ctx, c.ID)
		if err != nil {
			return err
		}
		equal(t, "locked claim", got, c)
		s.assertRowLocked(t, "SELECT 1 FROM offramp_claims WHERE id = ?", c.ID)
		return nil
	})
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		// The indexer may hand over the id in any hex case; rows keep the lower-case form.
		got, err := tx.Claims().LockClaimByOnchainID(ctx, core.EnvTest, testChainID, "0x"+strings.ToUpper(c.OnchainID[2:]))
		if err != nil {
			return err
		}
		equal(t, "claim by on-chain id", got, c)
		s.assertRowLocked(t, "SELECT 1 FROM offramp_claims WHERE id = ?", c.ID)
		return nil
	})
	for name, lock := range map[string]func(context.Context, ports.ClaimRepo) error{
		"unknown id": func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.LockClaim(ctx, core.NewID(core.PrefixClaim))
			return err
		},
		"other chain": func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.LockClaimByOnchainID(ctx, core.EnvTest, testChainID+1, c.OnchainID)
			return err
		},
		"other environment": func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.LockClaimByOnchainID(ctx, core.EnvLive, testChainID, c.OnchainID)
			return err
		},
		"unknown on-chain id": func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.LockClaimByOnchainID(ctx, core.EnvTest, testChainID, claim.NewOnchainID())
			return err
		},
	} {
		err := s.txErr(lock)
		if err == nil {
			t.Fatalf("%s: found", name)
		}
		wantCode(t, err, claim.CodeClaimNotFound)
	}
}

// testDueClaimIDs works in 2001, long before any other subtest's claim expires, so the
// global list holds only its own claims.
func testDueClaimIDs(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	at := time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC)
	const grace = time.Hour
	claimAt := func(status claim.Status, expiresIn time.Duration) string {
		return s.newClaim(t, core.EnvTest, sender, func(c *claim.Claim) { c.Status, c.ExpiresAt = status, at.Add(expiresIn) }).ID
	}
	openPast := claimAt(claim.StatusOpen, -2*time.Hour)
	openAtNow := claimAt(claim.StatusOpen, 0)
	claimAt(claim.StatusOpen, time.Second)
	lockedLong := claimAt(claim.StatusLocked, -3*time.Hour)
	lockedAtGrace := claimAt(claim.StatusLocked, -grace)
	claimAt(claim.StatusLocked, -30*time.Minute) // expired, but still within the grace period
	claimAt(claim.StatusLocked, time.Hour)
	for _, status := range []claim.Status{claim.StatusExpired, claim.StatusReleased, claim.StatusRefunded, claim.StatusCanceled} {
		claimAt(status, -5*time.Hour)
	}

	due := func(limit int) []string {
		var ids []string
		s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
			var err error
			ids, err = tx.Claims().DueClaimIDs(ctx, at, grace, limit)
			return err
		})
		return ids
	}
	equal(t, "due claims", due(100), []string{lockedLong, openPast, lockedAtGrace, openAtNow})
	equal(t, "due claims, limit 2", due(2), []string{lockedLong, openPast})
	equal(t, "due claims, no limit given", due(0), []string{lockedLong, openPast, lockedAtGrace, openAtNow})
}

func testLinkLifecycle(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	c, other := s.newClaim(t, core.EnvTest, sender, nil), s.newClaim(t, core.EnvTest, sender, nil)
	at := now()
	link := func(claimID string, superseded *time.Time) claim.Link {
		_, hash := claim.NewToken()
		return claim.Link{TenantID: sender, TokenHash: hash, ClaimID: claimID, Environment: core.EnvTest, ExpiresAt: at.Add(24 * time.Hour),
			SupersededAt: superseded, CreatedAt: at}
	}
	used, live, superseded, othersLive := link(c.ID, nil), link(c.ID, nil), link(c.ID, ptr(at.Add(-time.Hour))), link(other.ID, nil)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		for _, l := range []claim.Link{used, live, superseded, othersLive} {
			if err := tx.Claims().CreateLink(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})

	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().LockLinkByTokenHash(ctx, used.TokenHash)
		if err != nil {
			return err
		}
		equal(t, "locked link", got, used)
		s.assertRowLocked(t, "SELECT 1 FROM offramp_claim_links WHERE token_hash = ?", used.TokenHash)
		got.UsedAt = ptr(at.Add(time.Minute))
		used = got
		return tx.Claims().UpdateLink(ctx, got)
	})

	supersededAt := at.Add(10 * time.Minute)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		return tx.Claims().SupersedeLinks(ctx, sender, c.ID, supersededAt)
	})
	live.SupersededAt = &supersededAt
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		for name, want := range map[string]claim.Link{"used link": used, "live link": live,
			"already superseded link": superseded, "another claim's link": othersLive} {
			got, err := tx.Claims().LockLinkByTokenHash(ctx, want.TokenHash)
			if err != nil {
				return err
			}
			equal(t, name, got, want)
		}
		return nil
	})

	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
		_, err := r.LockLinkByTokenHash(ctx, claim.HashToken("no such token"))
		return err
	})
	wantCode(t, err, claim.CodeClaimNotFound)
}

func newChallenge(tenantID, claimID, phoneHash, ipHash string, createdAt time.Time) claim.Challenge {
	return claim.Challenge{TenantID: tenantID, ID: core.NewID(claim.PrefixChallenge), ClaimID: claimID, Environment: core.EnvTest,
		CodeHash: "code-hash", PhoneHash: phoneHash, IPHash: ipHash, Status: claim.ChallengePending,
		AttemptsRemaining: claim.ChallengeAttempts, ExpiresAt: createdAt.Add(claim.ChallengeLifetime),
		CreatedAt: createdAt, UpdatedAt: createdAt}
}

func testChallenges(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	c, other := s.newClaim(t, core.EnvTest, sender, nil), s.newClaim(t, core.EnvTest, sender, nil)
	ch := newChallenge(sender, c.ID, c.PhoneHash, randomHex(t, 32), now())
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error { return tx.Claims().CreateChallenge(ctx, ch) })

	for name, ids := range map[string][2]string{
		"another claim's challenge": {other.ID, ch.ID},
		"an unknown challenge":      {c.ID, core.NewID(claim.PrefixChallenge)},
	} {
		err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
			_, err := r.LockChallenge(ctx, sender, ids[0], ids[1])
			return err
		})
		if err == nil {
			t.Fatalf("%s: found", name)
		}
		wantCode(t, err, claim.CodeChallengeNotFound)
	}

	// A wrong code, then the right one: each attempt is stored before the next is read.
	for i, matches := range []bool{false, true} {
		s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
			got, err := tx.Claims().LockChallenge(ctx, sender, c.ID, ch.ID)
			if err != nil {
				return err
			}
			equal(t, "locked challenge", got, ch)
			s.assertRowLocked(t, "SELECT 1 FROM offramp_claim_challenges WHERE id = ?", ch.ID)
			_ = got.Verify(matches, ch.CreatedAt.Add(time.Duration(i+1)*time.Second))
			ch = got
			return tx.Claims().UpdateChallenge(ctx, got)
		})
	}
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().LockChallenge(ctx, sender, c.ID, ch.ID)
		if err != nil {
			return err
		}
		if got.Status != claim.ChallengeVerified || got.AttemptsRemaining != claim.ChallengeAttempts-1 || got.VerifiedAt == nil {
			t.Fatalf("challenge after a wrong and a right code: %+v", got)
		}
		equal(t, "verified challenge", got, ch)
		return nil
	})

	moved := ch
	moved.ClaimID = other.ID
	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error { return r.UpdateChallenge(ctx, moved) })
	wantCode(t, err, claim.CodeChallengeNotFound)
}

func testCountChallenges(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	c := s.newClaim(t, core.EnvTest, sender, nil)
	phone, otherPhone, ip, otherIP := randomHex(t, 32), randomHex(t, 32), randomHex(t, 32), randomHex(t, 32)
	since := now().Add(-time.Hour)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		for _, ch := range []claim.Challenge{
			newChallenge(sender, c.ID, phone, ip, since.Add(-time.Microsecond)), // before the window
			newChallenge(sender, c.ID, phone, otherIP, since),                   // at its start: counted
			newChallenge(sender, c.ID, phone, ip, since.Add(time.Minute)),
			newChallenge(sender, c.ID, otherPhone, ip, since.Add(2*time.Minute)),
		} {
			if err := tx.Claims().CreateChallenge(ctx, ch); err != nil {
				return err
			}
		}
		return nil
	})
	count := func(phoneHash, ipHash string, since time.Time) int {
		var n int
		s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
			var err error
			n, err = tx.Claims().CountChallengesSince(ctx, phoneHash, ipHash, since)
			return err
		})
		return n
	}
	for _, tc := range []struct {
		name      string
		phone, ip string
		since     time.Time
		want      int
	}{
		{"by phone", phone, "", since, 2},
		{"by phone, the IP ignored", phone, otherIP, since, 2},
		{"by IP", "", ip, since, 2},
		{"by the other IP", "", otherIP, since, 1},
		{"by phone, wider window", phone, "", since.Add(-time.Hour), 3},
		{"by IP, later since", "", ip, since.Add(90 * time.Second), 1},
		{"unknown phone", randomHex(t, 32), "", since, 0},
	} {
		if got := count(tc.phone, tc.ip, tc.since); got != tc.want {
			t.Errorf("%s: %d challenges, want %d", tc.name, got, tc.want)
		}
	}
}

func testCountChallengesNeedsHash(t *testing.T, s claimDB) {
	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
		_, err := r.CountChallengesSince(ctx, "", "", now())
		return err
	})
	if err == nil {
		t.Fatal("counting challenges without a phone or IP hash succeeded")
	}
}

func testRecordEscrowEvent(t *testing.T, s claimDB) {
	chainID, txHash := randomChainID(t), "0x"+randomHex(t, 32)
	record := func(chainID int64, logIndex uint, kind claim.EventKind) bool {
		var inserted bool
		err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
			var err error
			inserted, err = r.RecordEscrowEvent(ctx, "ten_escrow", chainID, txHash, logIndex, core.NewID(core.PrefixClaim), kind, now())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return inserted
	}
	if !record(chainID, 3, claim.EventFunded) {
		t.Fatal("first delivery of a log not recorded")
	}
	if record(chainID, 3, claim.EventFunded) || record(chainID, 3, claim.EventLocked) {
		t.Fatal("re-delivered log recorded again")
	}
	if !record(chainID, 4, claim.EventLocked) || !record(chainID+1, 3, claim.EventFunded) {
		t.Fatal("another log of the same transaction, or the same log index on another chain, not recorded")
	}
}

func testEscrowCursor(t *testing.T, s claimDB) {
	chainID := randomChainID(t)
	created := now()
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, created)
		if err != nil {
			return err
		}
		equal(t, "new cursor", c, ports.ChainCursor{Environment: core.EnvTest, ChainID: chainID, NextBlock: 0, UpdatedAt: created})
		c.NextBlock, c.UpdatedAt = 42, created.Add(time.Second)
		return tx.Claims().SaveEscrowCursor(ctx, c)
	})
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, created.Add(time.Hour))
		if err != nil {
			return err
		}
		equal(t, "saved cursor", c, ports.ChainCursor{Environment: core.EnvTest, ChainID: chainID, NextBlock: 42, UpdatedAt: created.Add(time.Second)})
		s.assertRowLocked(t, "SELECT 1 FROM offramp_escrow_cursors WHERE environment = 'TEST' AND chain_id = ?", chainID)
		live, err := tx.Claims().LockEscrowCursor(ctx, core.EnvLive, chainID, created)
		if err != nil {
			return err
		}
		if live.NextBlock != 0 {
			t.Fatalf("LIVE cursor shares TEST's position: %+v", live)
		}
		// The ledger mirror's cursor of the same chain is another table.
		mirror, found, err := tx.ChainIndex().FindCursor(ctx, core.EnvTest, chainID)
		if err != nil || found {
			t.Fatalf("escrow cursor shows up as the mirror's: %+v %v %v", mirror, found, err)
		}
		return nil
	})
	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
		return r.SaveEscrowCursor(ctx, ports.ChainCursor{Environment: core.EnvTest, ChainID: randomChainID(t), NextBlock: 1, UpdatedAt: now()})
	})
	if err == nil {
		t.Fatal("saving a cursor that was never created succeeded")
	}
}

// testEscrowCursorConcurrentCreators: the first creator holds its new, uncommitted row while a
// second creator arrives; the second waits, then locks that same row and sees what the first
// saved.
func testEscrowCursorConcurrentCreators(t *testing.T, s claimDB) {
	chainID := randomChainID(t)
	firstHolds := make(chan struct{})
	secondSaw := make(chan ports.ChainCursor, 1)
	secondErr := make(chan error, 1)
	go func() {
		<-firstHolds
		secondErr <- s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
			c, err := r.LockEscrowCursor(ctx, core.EnvTest, chainID, now())
			secondSaw <- c
			return err
		})
	}()
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, now())
		if err != nil {
			return err
		}
		close(firstHolds)
		s.waitForLockWaiter(t, "offramp_escrow_cursors", fmt.Sprint(chainID))
		c.NextBlock = 7
		return tx.Claims().SaveEscrowCursor(ctx, c)
	})
	if err := <-secondErr; err != nil {
		t.Fatal(err)
	}
	if c := <-secondSaw; c.NextBlock != 7 {
		t.Fatalf("second creator saw %+v, want the first creator's block 7", c)
	}
	s.wantOneCursorRow(t, chainID)
}

func testEscrowCursorManyCreators(t *testing.T, s claimDB) {
	chainID := randomChainID(t)
	const creators = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, creators)
	for range creators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
				c, err := r.LockEscrowCursor(ctx, core.EnvTest, chainID, now())
				if err != nil {
					return err
				}
				c.NextBlock++
				return r.SaveEscrowCursor(ctx, c)
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.wantOneCursorRow(t, chainID)
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, now())
		if err == nil && c.NextBlock != creators {
			t.Fatalf("cursor at %d after %d serialized increments", c.NextBlock, creators)
		}
		return err
	})
}

// waitForLockWaiter waits until another session waits on a lock in a statement whose text
// holds both table and key (Bun writes arguments into the statement).
func (s claimDB) waitForLockWaiter(t *testing.T, table, key string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := s.db.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE ? AND query LIKE ?`, "%"+table+"%", "%"+key+"%").Scan(context.Background(), &n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no session waited on the lock")
}

func (s claimDB) wantOneCursorRow(t *testing.T, chainID int64) {
	t.Helper()
	var n int
	err := s.db.NewRaw("SELECT count(*) FROM offramp_escrow_cursors WHERE chain_id = ?", chainID).Scan(context.Background(), &n)
	if err != nil || n != 1 {
		t.Fatalf("%d cursor rows for chain %d (%v), want 1", n, chainID, err)
	}
}

func testUpdatesOfMissingRows(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	ghost := claim.New(core.EnvTest, "ofp_missing", sender, 1, testChainID, "base-sepolia", "usdc", "phone", "+1***",
		[]byte{1}, 0, now())
	err := s.txErr(func(ctx context.Context, r ports.ClaimRepo) error { return r.UpdateClaim(ctx, ghost) })
	wantCode(t, err, claim.CodeClaimNotFound)
	_, hash := claim.NewToken()
	err = s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
		return r.UpdateLink(ctx, claim.Link{TenantID: sender, TokenHash: hash, ClaimID: ghost.ID, Environment: core.EnvTest, ExpiresAt: now(), CreatedAt: now()})
	})
	wantCode(t, err, claim.CodeClaimNotFound)
	err = s.txErr(func(ctx context.Context, r ports.ClaimRepo) error {
		return r.UpdateChallenge(ctx, newChallenge(sender, ghost.ID, "phone", "ip", now()))
	})
	wantCode(t, err, claim.CodeChallengeNotFound)
}

func testTimestampsUTC(t *testing.T, s claimDB) {
	sender := s.newTenant(t)
	zone := time.FixedZone("UTC+5", 5*60*60)
	at := now().In(zone)
	c := s.newClaim(t, core.EnvTest, sender, func(c *claim.Claim) {
		c.ExpiresAt, c.CreatedAt, c.UpdatedAt, c.RedeemedAt, c.ResendWindowStart = at, at, at, ptr(at), ptr(at)
	})
	s.inTx(t, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().LockClaim(ctx, c.ID)
		if err != nil {
			return err
		}
		for name, ts := range map[string]time.Time{"expiresAt": got.ExpiresAt, "createdAt": got.CreatedAt,
			"updatedAt": got.UpdatedAt, "redeemedAt": *got.RedeemedAt, "resendWindowStart": *got.ResendWindowStart} {
			if ts.Location() != time.UTC || !ts.Equal(at) {
				t.Errorf("%s read back as %v, want %v in UTC", name, ts, at)
			}
		}
		return nil
	})
}
