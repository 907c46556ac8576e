package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.CardSpendModule = (*Adapter)(nil)

// CardModule is the card spend module's side of the adapter (ports.CardSpendModule): whether
// a Safe enabled it, its settlement state per Safe, and settling card spend.
type CardModule struct {
	*reader
	relay      *relayer
	cardModule *bindings.CardSpendModule
	// cardSettlement is the card module's settlement address, read at start-up (zero without
	// a module).
	cardSettlement common.Address
}

// ErrCardModuleNotConfigured is every card module method's answer on a chain configured without
// a cardSpendModule address (public chains: card issuance is sandbox-only).
var ErrCardModuleNotConfigured = errors.New("chain: the card spend module is not configured on this chain (no cardSpendModule address)")

var (
	cardModuleABI  = bindings.NewCardSpendModule().GetABI()
	cardSettledTop = cardModuleABI.Events["CardSpendSettled"].ID
)

// errSettled tells SettleCardSpend that the reference is already settled with the same Safe and
// amount: nothing is sent.
var errSettled = errors.New("chain: the card settlement is already on chain")

// readCardModuleConfig checks the configured card spend module at start-up: it has code, moves
// this USDC and is operated by this relayer. It returns the module's settlement address (zero
// without a module).
func (a *CardModule) readCardModuleConfig(ctx context.Context) (common.Address, error) {
	address := a.addrs.CardSpendModule
	if address == (common.Address{}) {
		return common.Address{}, nil
	}
	if deployed, err := a.IsDeployed(ctx, address); err != nil {
		return common.Address{}, err
	} else if !deployed {
		return common.Address{}, fmt.Errorf("chain: no CardSpendModule contract at %s on chain %d", address.Hex(), a.chainID)
	}
	token, err := callUnpack(ctx, a, address, a.cardModule.PackToken(), a.cardModule.UnpackToken)
	if err != nil {
		return common.Address{}, err
	}
	operator, err := callUnpack(ctx, a, address, a.cardModule.PackOperator(), a.cardModule.UnpackOperator)
	if err != nil {
		return common.Address{}, err
	}
	settlement, err := callUnpack(ctx, a, address, a.cardModule.PackSettlement(), a.cardModule.UnpackSettlement)
	if err != nil {
		return common.Address{}, err
	}
	switch {
	case token != a.addrs.USDC:
		return common.Address{}, fmt.Errorf("chain: the CardSpendModule at %s moves token %s, not the configured USDC %s", address.Hex(), token.Hex(), a.addrs.USDC.Hex())
	case operator != a.relay.from:
		return common.Address{}, fmt.Errorf("chain: the CardSpendModule at %s is operated by %s, not by the relayer %s", address.Hex(), operator.Hex(), a.relay.from.Hex())
	}
	return settlement, nil
}

func (a *CardModule) cardModuleConfigured() bool {
	return a.addrs.CardSpendModule != (common.Address{})
}

// CardModuleAddress implements ports.CardSpendModule: the zero address when not configured.
func (a *CardModule) CardModuleAddress() common.Address { return a.addrs.CardSpendModule }

// CardSettlementAddress implements ports.CardSpendModule: the module's immutable settlement
// address (the relayer on chains Corridor deploys itself, as for the claim escrow), zero when
// not configured.
func (a *CardModule) CardSettlementAddress() common.Address { return a.cardSettlement }

// CardModuleEnabled implements ports.CardSpendModule through the Safe's isModuleEnabled. A Safe
// not deployed yet has no module enabled (false, no error).
func (a *CardModule) CardModuleEnabled(ctx context.Context, safeAddress common.Address) (bool, error) {
	if !a.cardModuleConfigured() {
		return false, ErrCardModuleNotConfigured
	}
	if deployed, err := a.IsDeployed(ctx, safeAddress); err != nil || !deployed {
		return false, err
	}
	return callUnpack(ctx, a, safeAddress, a.safeL2.PackIsModuleEnabled(a.addrs.CardSpendModule), a.safeL2.UnpackIsModuleEnabled)
}

// CardSettlement is what the module recorded under a reference: the zero Safe and a zero amount
// when the reference was never settled.
type CardSettlement struct {
	Safe            common.Address
	AmountBaseUnits *big.Int
}

// CardSettlementOf reads the module's record of ref.
func (a *CardModule) CardSettlementOf(ctx context.Context, ref [32]byte) (CardSettlement, error) {
	if !a.cardModuleConfigured() {
		return CardSettlement{}, ErrCardModuleNotConfigured
	}
	out, err := callUnpack(ctx, a, a.addrs.CardSpendModule, a.cardModule.PackSettlements(ref), a.cardModule.UnpackSettlements)
	if err != nil {
		return CardSettlement{}, err
	}
	return CardSettlement{Safe: out.Safe, AmountBaseUnits: out.Amount}, nil
}

// SettleCardSpend implements ports.CardSpendModule. A reference already settled with the same
// Safe and amount is a retry (zero hash, nothing sent); with another Safe or amount it is
// *ports.RevertError CSM:refUsed. The check runs again under the relayer's lock, so concurrent
// retries send at most one transaction, and a retry while the first is pending gets its hash.
// Anything else the contract would refuse (GS104: the module is not enabled; the token's
// balance error) comes back as *ports.RevertError from the gas estimate.
func (a *CardModule) SettleCardSpend(ctx context.Context, safeAddress common.Address, amount *big.Int, ref [32]byte) (common.Hash, error) {
	if !a.cardModuleConfigured() {
		return common.Hash{}, ErrCardModuleNotConfigured
	}
	if err := positive(amount); err != nil {
		return common.Hash{}, err
	}
	if ref == ([32]byte{}) || safeAddress == (common.Address{}) {
		return common.Hash{}, errors.New("chain: a card settlement needs a Safe and a non-zero reference")
	}
	check := func(ctx context.Context) error {
		s, err := a.CardSettlementOf(ctx, ref)
		switch {
		case err != nil:
			return err
		case s.Safe == (common.Address{}):
			return nil
		case s.Safe == safeAddress && s.AmountBaseUnits.Cmp(amount) == 0:
			return errSettled
		}
		return &ports.RevertError{Reason: "CSM:refUsed", Meaning: fmt.Sprintf(
			"the reference %s already settled %s base units from %s", hexutil.Encode(ref[:]), s.AmountBaseUnits, s.Safe.Hex())}
	}
	err := check(ctx)
	if err == nil {
		var hash common.Hash
		key := "card:settle:" + hexutil.Encode(ref[:])
		data := a.cardModule.PackSettle(safeAddress, amount, ref)
		hash, err = a.relay.sendOnce(ctx, key, check, call{to: &a.addrs.CardSpendModule, data: data})
		if err == nil {
			return hash, nil
		}
	}
	if errors.Is(err, errSettled) {
		return common.Hash{}, nil
	}
	return common.Hash{}, err
}

// CardSettlementLogs implements ports.CardSpendModule: the module's CardSpendSettled events in
// [fromBlock, toBlock], sorted by block and log index. Removed (reorged) logs are dropped.
func (a *CardModule) CardSettlementLogs(ctx context.Context, fromBlock, toBlock uint64) ([]ports.CardSettlementLog, error) {
	if !a.cardModuleConfigured() {
		return nil, ErrCardModuleNotConfigured
	}
	if err := ports.CheckLogRange(fromBlock, toBlock, 0); err != nil {
		return nil, err
	}
	logs, err := a.client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(fromBlock), ToBlock: new(big.Int).SetUint64(toBlock),
		Addresses: []common.Address{a.addrs.CardSpendModule}, Topics: [][]common.Hash{{cardSettledTop}},
	})
	if err != nil {
		return nil, fmt.Errorf("chain: card settlement logs %d..%d: %w", fromBlock, toBlock, err)
	}
	out := make([]ports.CardSettlementLog, 0, len(logs))
	for i := range logs {
		l := &logs[i]
		if l.Removed {
			continue
		}
		e, err := a.cardModule.UnpackCardSpendSettledEvent(l)
		if err != nil {
			return nil, fmt.Errorf("chain: card settlement log %s/%d: %w", l.TxHash.Hex(), l.Index, err)
		}
		out = append(out, ports.CardSettlementLog{
			TxHash: l.TxHash, LogIndex: l.Index, BlockNumber: l.BlockNumber, BlockHash: l.BlockHash,
			Safe: e.Safe, Ref: e.Ref, AmountBaseUnits: e.Amount,
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber < out[j].BlockNumber
		}
		return out[i].LogIndex < out[j].LogIndex
	})
	return out, nil
}
