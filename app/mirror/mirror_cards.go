package mirror

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Card settlements in the ledger mirror (docs/chain.md, "The card spend module"). A card
// capture already moved the spent money from the card wallet's wallet:{id}:onchain account to
// the issuer's clearing account; the settlement then moves the same USDC out of the Safe on
// chain, through the card spend module, to the module's settlement address. Booking that
// Transfer log like any other (wallet → world) would take the money off the wallet twice, so a
// Transfer log from a wallet's Safe to the settlement address, in a transaction that also holds
// the module's CardSpendSettled event for the same Safe and amount, is posted from the issuer's
// clearing account to the chain's world account instead. Anything else paid to the settlement
// address (an owner-signed Safe payment, no module event) is an ordinary wallet outflow.

// cardSettlementKey identifies a settlement's money movement: its transaction, Safe and amount.
type cardSettlementKey struct {
	tx     common.Hash
	safe   common.Address
	amount string
}

// cardSettlements are the module's settlements of a range, as counts per key: each matches at
// most that many Transfer logs.
type cardSettlements map[cardSettlementKey]int

// fetchCardSettlements reads the card module's settlement events for the blocks of logs that
// could be settlements (a wallet paying the settlement address), nil when the environment has no
// module or no such log.
func (s *Service) fetchCardSettlements(ctx context.Context, env core.Environment, logs []ports.TransferLog, wallets []ports.ChainWallet) (cardSettlements, error) {
	module := s.cardModules.Module(env)
	if module == nil {
		return nil, nil
	}
	settlement := module.CardSettlementAddress()
	isWallet := make(map[common.Address]bool, len(wallets))
	for _, w := range wallets {
		isWallet[common.HexToAddress(w.Address)] = true
	}
	var from, to uint64
	found := false
	for _, l := range logs {
		if l.To != settlement || !isWallet[l.From] {
			continue
		}
		if !found || l.BlockNumber < from {
			from = l.BlockNumber
		}
		if !found || l.BlockNumber > to {
			to = l.BlockNumber
		}
		found = true
	}
	if !found {
		return nil, nil
	}
	out := cardSettlements{}
	for start := from; start <= to; start += ports.MaxLogBlockRange {
		end := min(to, start+ports.MaxLogBlockRange-1)
		events, err := module.CardSettlementLogs(ctx, start, end)
		if err != nil {
			return nil, err
		}
		for _, e := range events {
			out[cardSettlementKey{e.TxHash, e.Safe, e.AmountBaseUnits.String()}]++
		}
		if end == to {
			break
		}
	}
	return out, nil
}

// cardSettlementSource is the account a Transfer log is booked from when it is a card
// settlement (and takes that settlement, so it matches one log only); ok is false for any other
// log.
func (s *Service) cardSettlementSource(env core.Environment, l ports.TransferLog, settlements cardSettlements) (ledger.AccountSpec, bool) {
	if len(settlements) == 0 || l.AmountBaseUnits == nil {
		return ledger.AccountSpec{}, false
	}
	module := s.cardModules.Module(env)
	if module == nil || l.To != module.CardSettlementAddress() {
		return ledger.AccountSpec{}, false
	}
	key := cardSettlementKey{l.TxHash, l.From, l.AmountBaseUnits.String()}
	if settlements[key] == 0 {
		return ledger.AccountSpec{}, false
	}
	settlements[key]--
	return ledger.IssuerClearing(env, ledger.AssetUSDC, s.cardIssuer), true
}
