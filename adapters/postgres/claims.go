package postgres

// SCAFFOLD: replaced by the claims repository (issue 7); every method fails until then.

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"corridor/core"
	"corridor/core/claim"
	"corridor/ports"
)

var _ ports.ClaimRepo = claimRepo{}

type claimRepo struct{ db bun.IDB }

var errClaimsScaffold = errors.New("postgres: claims repository not built yet")

func (claimRepo) CreateClaim(context.Context, claim.Claim) error { return errClaimsScaffold }
func (claimRepo) FindClaimForSender(context.Context, core.Environment, string, string) (claim.Claim, error) {
	return claim.Claim{}, errClaimsScaffold
}
func (claimRepo) LockClaim(context.Context, string) (claim.Claim, error) {
	return claim.Claim{}, errClaimsScaffold
}
func (claimRepo) LockClaimByOnchainID(context.Context, core.Environment, int64, string) (claim.Claim, error) {
	return claim.Claim{}, errClaimsScaffold
}
func (claimRepo) UpdateClaim(context.Context, claim.Claim) error { return errClaimsScaffold }
func (claimRepo) DueClaimIDs(context.Context, time.Time, time.Duration, int) ([]string, error) {
	return nil, errClaimsScaffold
}
func (claimRepo) CreateLink(context.Context, claim.Link) error            { return errClaimsScaffold }
func (claimRepo) SupersedeLinks(context.Context, string, time.Time) error { return errClaimsScaffold }
func (claimRepo) LockLinkByTokenHash(context.Context, string) (claim.Link, error) {
	return claim.Link{}, errClaimsScaffold
}
func (claimRepo) UpdateLink(context.Context, claim.Link) error           { return errClaimsScaffold }
func (claimRepo) CreateChallenge(context.Context, claim.Challenge) error { return errClaimsScaffold }
func (claimRepo) LockChallenge(context.Context, string, string) (claim.Challenge, error) {
	return claim.Challenge{}, errClaimsScaffold
}
func (claimRepo) UpdateChallenge(context.Context, claim.Challenge) error { return errClaimsScaffold }
func (claimRepo) CountChallengesSince(context.Context, string, string, time.Time) (int, error) {
	return 0, errClaimsScaffold
}
func (claimRepo) RecordEscrowEvent(context.Context, int64, string, uint, string, claim.EventKind, time.Time) (bool, error) {
	return false, errClaimsScaffold
}
func (claimRepo) LockEscrowCursor(context.Context, core.Environment, int64, time.Time) (ports.ChainCursor, error) {
	return ports.ChainCursor{}, errClaimsScaffold
}
func (claimRepo) SaveEscrowCursor(context.Context, ports.ChainCursor) error { return errClaimsScaffold }
