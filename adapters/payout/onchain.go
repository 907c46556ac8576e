package payout

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// StuckSendAfter is how long a payout may stay claimed for sending without a recorded
// transaction before its polls report it BLOCKED: the process that claimed it stopped between
// the node accepting the transfer and the hash being recorded, so whether the money moved is
// for an operator to check, never for a retry to guess by sending again.
const StuckSendAfter = 10 * time.Minute

// Onchain is the ONCHAIN_WALLET provider (docs/decisions/offramp.md): a USDC transfer on the environment's chain from
// the service's settlement account (the relayer) to the destination address, confirmed by its
// receipt. Its transfers live in Postgres, so every server process agrees on each one and a
// retried submission never sends twice.
type Onchain struct {
	db     *bun.DB
	chains map[core.Environment]ports.Chain
	now    func() time.Time
}

var (
	_ ports.PayoutProvider = (*Onchain)(nil)
	_ ports.NetworkPayout  = (*Onchain)(nil)
)

// NewOnchain builds the onchain provider over the configured chains.
func NewOnchain(db *bun.DB, chains map[core.Environment]ports.Chain) *Onchain {
	if db == nil {
		panic("payout: NewOnchain needs a database")
	}
	return &Onchain{db: db, chains: chains, now: func() time.Time { return time.Now().UTC() }}
}

// Name is the provider id.
func (*Onchain) Name() string { return "onchain" }

// Network is the destination network the provider pays on in env (eip155:{chainId}); false
// where no chain is configured.
func (o *Onchain) Network(env core.Environment) (string, bool) {
	c, ok := o.chains[env]
	if !ok || c == nil {
		return "", false
	}
	return fmt.Sprintf("eip155:%d", c.ChainID()), true
}

// Submit records the payout once per idempotency key, claims it for sending and sends the
// USDC transfer of the delivered amount. A concurrent or repeated submission of a key already
// claimed reports SUBMITTED with the same reference and sends nothing. A send the node refused
// releases the claim, so the caller's retry sends again.
func (o *Onchain) Submit(ctx context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	amount := r.DeliverBaseUnits
	if r.IdempotencyKey == "" || amount <= 0 {
		return ports.PayoutStatus{}, errors.New("payout: an onchain payout needs an idempotency key and a positive delivered amount")
	}
	network, ok := o.Network(r.Environment)
	if !ok {
		return ports.PayoutStatus{}, core.E(core.CodeChainUnavailable, "no chain is configured for %s", r.Environment)
	}
	if r.Destination.Network != network || !common.IsHexAddress(r.Destination.Address) {
		return ports.PayoutStatus{}, core.E(core.CodeValidationFailed, "the onchain provider pays USDC on %s only", network)
	}
	to := common.HexToAddress(r.Destination.Address)
	_, err := o.db.NewRaw(`INSERT INTO payout_onchain_transfers (reference, idempotency_key, environment, to_address, amount_base_units, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
		"onchain_"+core.RandomToken(12), r.IdempotencyKey, string(r.Environment), to.Hex(), amount, o.now()).Exec(ctx)
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	var ref string
	err = o.db.NewRaw(`UPDATE payout_onchain_transfers SET sending_at = ?
		WHERE idempotency_key = ? AND tx_hash IS NULL AND sending_at IS NULL RETURNING reference`, o.now(), r.IdempotencyKey).Scan(ctx, &ref)
	if errors.Is(err, sql.ErrNoRows) {
		// Sent already, or being sent by another run: the same reference either way.
		if err := o.db.NewRaw("SELECT reference FROM payout_onchain_transfers WHERE idempotency_key = ?", r.IdempotencyKey).Scan(ctx, &ref); err != nil {
			return ports.PayoutStatus{}, err
		}
		return ports.PayoutStatus{Reference: ref, State: ports.PayoutSubmitted}, nil
	}
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	hash, sendErr := o.chains[r.Environment].TransferUSDC(ctx, to, big.NewInt(amount))
	if sendErr != nil {
		_, err := o.db.NewRaw("UPDATE payout_onchain_transfers SET sending_at = NULL WHERE reference = ? AND tx_hash IS NULL", ref).Exec(context.WithoutCancel(ctx))
		return ports.PayoutStatus{}, errors.Join(fmt.Errorf("payout: onchain transfer: %w", sendErr), err)
	}
	if _, err := o.db.NewRaw("UPDATE payout_onchain_transfers SET tx_hash = ? WHERE reference = ?", hash.Hex(), ref).Exec(context.WithoutCancel(ctx)); err != nil {
		return ports.PayoutStatus{}, err
	}
	return ports.PayoutStatus{Reference: ref, State: ports.PayoutSubmitted}, nil
}

// Poll reads the transfer's receipt: PENDING until it is mined, then SUCCEEDED or FAILED
// (final). A claim without a recorded transaction is PENDING while its send may still be
// running and BLOCKED after StuckSendAfter.
func (o *Onchain) Poll(ctx context.Context, reference string) (ports.PayoutStatus, error) {
	var row struct {
		Environment string         `bun:"environment"`
		TxHash      sql.NullString `bun:"tx_hash"`
		SendingAt   sql.NullTime   `bun:"sending_at"`
	}
	err := o.db.NewRaw("SELECT environment, tx_hash, sending_at FROM payout_onchain_transfers WHERE reference = ?", reference).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.PayoutStatus{}, core.E(core.CodeValidationFailed, "unknown onchain payout reference")
	}
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	if !row.TxHash.Valid {
		if row.SendingAt.Valid && o.now().Sub(row.SendingAt.Time) > StuckSendAfter {
			return ports.PayoutStatus{Reference: reference, State: ports.PayoutBlocked}, nil
		}
		return ports.PayoutStatus{Reference: reference, State: ports.PayoutPending}, nil
	}
	c, ok := o.chains[core.Environment(row.Environment)]
	if !ok || c == nil {
		return ports.PayoutStatus{}, core.E(core.CodeChainUnavailable, "no chain is configured for %s", row.Environment)
	}
	rc, err := c.Receipt(ctx, common.HexToHash(row.TxHash.String))
	if err != nil {
		return ports.PayoutStatus{}, err
	}
	switch rc.Status {
	case ports.TxSucceeded:
		return ports.PayoutStatus{Reference: reference, State: ports.PayoutSucceeded, Final: true}, nil
	case ports.TxFailed:
		return ports.PayoutStatus{Reference: reference, State: ports.PayoutFailed, Final: true}, nil
	}
	return ports.PayoutStatus{Reference: reference, State: ports.PayoutPending}, nil
}
