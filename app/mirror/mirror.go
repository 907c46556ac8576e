package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// The ledger mirror (docs/chain.md): every USDC Transfer log that moves money into or out of a
// wallet of the environment becomes one POSTED ledger transfer with the reference
// chain:{chainId}:{txHash}:{logIndex}, so a log is posted at most once however often it is
// seen. A tenant wallet's side is its wallet:{walletId}:onchain account; any other address
// (a mint from 0x0, an external sender or receiver) is the chain's world:chain:{chainId}
// account. The indexer walks blocks from a stored cursor in ranges of at most
// ports.MaxLogBlockRange and moves the cursor in the same transaction as the postings.
//
// Why a wallet account (NonNegative, like the on-chain balance it mirrors) never goes negative:
// logs are posted in chain order, and every log of a wallet is posted, from before its first
// credit. A wallet's address is unknowable before its row commits (the CREATE2 salt comes from
// its new id), so no log can touch it earlier; and a range's postings only commit after a
// re-read, inside the committing transaction, of the environment's wallets: a wallet whose row
// committed after the range's logs were fetched is fetched for that range too before anything
// commits. The latest block was read before that re-read, so a wallet committed after it can
// only have logs in later blocks. Accounts are opened on first use in the posting transaction.
//
// Confirmations and reorgs (docs/chain.md): the indexer reads only blocks at least the
// environment's confirmation depth below the head. With each range it records the hash of the
// range's last block and of every block it posted from (with the ids of those transfers). A run
// first compares the newest recorded hash with the chain's; on a mismatch it walks down the
// recorded blocks to the newest one still on the chain, reverses (newest first) every transfer
// posted from the blocks above it, and moves the cursor back to the fork point, all in one
// transaction. A log of a dropped transaction that is mined again later is posted again under
// its reference suffixed with its new block hash (the first reference is taken by the reversed
// transfer).

// Bounds of one indexer run.
const (
	// maxIndexRangesPerRun bounds the ranges one run walks (the next run carries on).
	maxIndexRangesPerRun = 25
	// maxWalletRechecks bounds how often one range is re-fetched for wallets created while it
	// was being indexed, before the run gives up (and the next one starts that range again).
	maxWalletRechecks = 3
)

// ChainLogReference is the ledger reference of one Transfer log.
func ChainLogReference(chainID int64, txHash common.Hash, logIndex uint) string {
	return fmt.Sprintf("chain:%d:%s:%d", chainID, txHash.Hex(), logIndex)
}

// ChainIndexResult says what one indexer run did.
type ChainIndexResult struct {
	Environment core.Environment
	ChainID     int64
	// FromBlock and NextBlock are the cursor before and after the run.
	FromBlock, NextBlock uint64
	LatestBlock          uint64
	Logs                 int // Transfer logs of the environment's wallets seen
	Posted               int // transfers newly posted
	Replayed             int // logs whose transfer was already posted
	Skipped              int // logs that could not be posted (recorded in background_failures)
	// Raced counts the ranges another run committed first (the periodic pass and a catch-up,
	// or two replicas): their logs were posted or replayed by that run, so they count in
	// neither Logs nor Posted here. CaughtUp with Logs 0 and Raced > 0 means "someone else
	// indexed these blocks", never "these blocks hold no logs".
	Raced int
	// Reorg is what the run undid before indexing, nil when the recorded blocks were still on
	// the chain.
	Reorg    *ReorgResult
	CaughtUp bool
}

// IndexChain runs the ledger mirror's indexer for env once: from the cursor towards the latest
// block, at most maxIndexRangesPerRun ranges. Concurrent runs are safe: a range commits only
// when the cursor still stands where the run read it, and a log's transfer is idempotent.
func (s *Service) IndexChain(ctx context.Context, env core.Environment) (ChainIndexResult, error) {
	c, err := s.chains.Chain(env)
	if err != nil {
		return ChainIndexResult{}, err
	}
	cursor, err := s.readCursor(ctx, env, c.ChainID())
	if err != nil {
		return ChainIndexResult{}, err
	}
	res := ChainIndexResult{Environment: env, ChainID: c.ChainID(), FromBlock: cursor.NextBlock, NextBlock: cursor.NextBlock}
	if res.Reorg, err = s.undoReorg(ctx, c, env, cursor); err != nil {
		return res, err
	}
	if res.Reorg != nil {
		res.NextBlock = res.Reorg.ForkBlock
	}
	for i := 0; i < maxIndexRangesPerRun && !res.CaughtUp; i++ {
		if err := s.indexRange(ctx, c, env, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (s *Service) readCursor(ctx context.Context, env core.Environment, chainID int64) (ports.ChainCursor, error) {
	var cursor ports.ChainCursor
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		cursor, _, err = tx.ChainIndex().FindCursor(ctx, env, chainID)
		return err
	})
	return cursor, err
}

// indexRange indexes the blocks after res.NextBlock: one range of at most MaxLogBlockRange
// blocks, or straight to the latest block while the environment has no wallets at all.
func (s *Service) indexRange(ctx context.Context, c ports.Chain, env core.Environment, res *ChainIndexResult) error {
	head, err := c.LatestBlock(ctx)
	if err != nil {
		return err
	}
	depth := s.confirmations[env]
	res.LatestBlock = head
	from := res.NextBlock
	if head < depth || from > head-depth {
		// Nothing confirmed beyond the cursor yet (a reorg that shortened the chain below the
		// cursor was undone by undoReorg before this).
		res.CaughtUp = true
		return nil
	}
	latest := head - depth
	wallets, err := s.chainWallets(ctx, env, c.ChainID())
	if err != nil {
		return err
	}
	to := latest
	if len(wallets) > 0 {
		to = min(latest, from+ports.MaxLogBlockRange-1)
	}
	logs, err := transferLogs(ctx, c, from, to, wallets)
	if err != nil {
		return err
	}
	hashes, err := blockHashes(ctx, c, to, logs)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		settlements, err := s.fetchCardSettlements(ctx, env, logs, wallets)
		if err != nil {
			return err
		}
		step, err := s.commitRange(ctx, env, c.ChainID(), rangeToCommit{from: from, to: to, logs: logs, hashes: hashes, settlements: settlements}, wallets)
		if err != nil {
			return err
		}
		switch {
		case step.raced:
			// Another run moved the cursor: carry on from where it stands.
			cursor, err := s.readCursor(ctx, env, c.ChainID())
			res.NextBlock, res.Raced = cursor.NextBlock, res.Raced+1
			return err
		case len(step.missing) == 0:
			res.NextBlock, res.Logs = to+1, res.Logs+len(logs)
			res.Posted, res.Replayed, res.Skipped = res.Posted+step.posted, res.Replayed+step.replayed, res.Skipped+step.skipped
			res.CaughtUp = to == latest
			return nil
		case attempt == maxWalletRechecks:
			return fmt.Errorf("ledger mirror: wallets kept appearing while blocks %d..%d of chain %d were indexed; retrying later", from, to, c.ChainID())
		case to-from >= ports.MaxLogBlockRange:
			// Wallets appeared during a jump over a long wallet-less stretch: start this range
			// again in bounded steps rather than fetch the whole stretch for them.
			return nil
		}
		extra, err := transferLogs(ctx, c, from, to, step.missing)
		if err != nil {
			return err
		}
		logs, wallets = mergeLogs(logs, extra), append(wallets, step.missing...)
		if hashes, err = blockHashes(ctx, c, to, logs); err != nil {
			return err
		}
	}
}

func (s *Service) chainWallets(ctx context.Context, env core.Environment, chainID int64) ([]ports.ChainWallet, error) {
	var wallets []ports.ChainWallet
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		wallets, err = listAllChainWallets(ctx, tx, env, chainID)
		return err
	})
	return wallets, err
}

func listAllChainWallets(ctx context.Context, tx txView, env core.Environment, chainID int64) ([]ports.ChainWallet, error) {
	wallets, err := tx.ChainIndex().ListChainWallets(ctx, env, chainID, ports.MaxChainWallets+1)
	if err == nil && len(wallets) > ports.MaxChainWallets {
		err = fmt.Errorf("ledger mirror: %s has more than %d wallets on chain %d; the indexer needs unfiltered log scans at this size", env, ports.MaxChainWallets, chainID)
	}
	return wallets, err
}

// rangeCommit is what one attempt to commit a range found.
type rangeCommit struct {
	raced            bool                // the cursor had moved: nothing written
	missing          []ports.ChainWallet // wallets the logs were not fetched for: nothing written
	posted, replayed int
	skipped          int
}

// rangeToCommit is one range's logs and the hashes of the blocks it records.
type rangeToCommit struct {
	from, to uint64
	logs     []ports.TransferLog
	hashes   map[uint64]string
	// settlements are the card module's settlements among the logs (mirror_cards.go).
	settlements cardSettlements
}

// commitRange posts the range's logs and moves the cursor to to+1 in one transaction, unless the
// cursor moved meanwhile or wallets exist that the logs were not fetched for.
func (s *Service) commitRange(ctx context.Context, env core.Environment, chainID int64, r rangeToCommit, fetched []ports.ChainWallet) (rangeCommit, error) {
	from, to := r.from, r.to
	var out rangeCommit
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		out = rangeCommit{}
		now := s.clock.Now()
		cursor, err := tx.ChainIndex().LockCursor(ctx, env, chainID, now)
		if err != nil {
			return err
		}
		if cursor.NextBlock != from {
			out.raced = true
			return nil
		}
		current, err := listAllChainWallets(ctx, tx, env, chainID)
		if err != nil {
			return err
		}
		if out.missing = notFetched(current, fetched); len(out.missing) > 0 {
			return nil
		}
		byAddress := make(map[common.Address]ports.ChainWallet, len(current))
		for _, w := range current {
			byAddress[common.HexToAddress(w.Address)] = w
		}
		items := map[uint64][]string{}
		settlements := maps.Clone(r.settlements) // each matches one log; a retried unit starts afresh
		for _, l := range r.logs {
			source, isSettlement := s.cardSettlementSource(env, l, settlements)
			var sourceOverride *ledger.AccountSpec
			if isSettlement {
				sourceOverride = &source
			} else if err := releasePaymentHold(ctx, tx, env, chainID, l, byAddress, now); err != nil {
				return err
			}
			transferIDs, posted, err := postTransferLog(ctx, tx, env, chainID, l, byAddress, sourceOverride, now)
			var domain *core.Error
			switch {
			case errors.As(err, &domain):
				// An unpostable log (an amount beyond the ledger's range, a wallet account the
				// chain says went negative) cannot change on a retry: it is recorded for an
				// operator and skipped, so it does not stall every later log.
				if err := s.skipLog(ctx, tx, env, chainID, l, err, now); err != nil {
					return err
				}
				out.skipped++
				continue
			case err != nil:
				return err
			case posted:
				out.posted++
			default:
				out.replayed++
			}
			if len(transferIDs) > 0 {
				items[l.BlockNumber] = append(items[l.BlockNumber], transferIDs...)
			}
		}
		if err := recordBlocks(ctx, tx, ports.IndexerLedgerMirror, env, chainID, r.to, r.hashes, items, now); err != nil {
			return err
		}
		cursor.NextBlock, cursor.UpdatedAt = to+1, now
		return tx.ChainIndex().SaveCursor(ctx, cursor)
	})
	return out, err
}

func notFetched(current, fetched []ports.ChainWallet) []ports.ChainWallet {
	seen := make(map[string]bool, len(fetched))
	for _, w := range fetched {
		seen[w.ID] = true
	}
	var missing []ports.ChainWallet
	for _, w := range current {
		if !seen[w.ID] {
			missing = append(missing, w)
		}
	}
	return missing
}

// postTransferLog posts one log: the sender's side is debited, the receiver's credited. It
// returns the ids of the log's transfers, and reports false for a log already posted (and for
// one that moves nothing: a zero amount, or a wallet paying itself, which has no transfer). A
// domain error (*core.Error) means the log cannot be posted and leaves the transaction usable.
// source, when not nil, replaces the sender's side (a card settlement is booked from the
// issuer's clearing account). Every transfer stays with one tenant's rows (logLegs).
func postTransferLog(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.TransferLog, wallets map[common.Address]ports.ChainWallet, source *ledger.AccountSpec, now time.Time) ([]string, bool, error) {
	amount, err := USDCBaseUnits(l.AmountBaseUnits)
	if err != nil {
		return nil, false, err
	}
	from, to := sideOf(env, chainID, l.From, wallets), sideOf(env, chainID, l.To, wallets)
	if source != nil {
		if from, err = settlementSource(ctx, tx, *source, from.TenantID, amount); err != nil {
			return nil, false, err
		}
	}
	if amount == 0 || from.Reference == to.Reference {
		return nil, false, nil
	}
	var ids []string
	posted := false
	for _, leg := range logLegs(env, ChainLogReference(chainID, l.TxHash, l.LogIndex), from, to) {
		id, fresh, err := postLogLeg(ctx, tx, env, chainID, l, leg, amount, now)
		if err != nil {
			return nil, false, err
		}
		ids, posted = append(ids, id), posted || fresh
	}
	return ids, posted, nil
}

// logLeg is one transfer of a log: its reference and its two sides.
type logLeg struct {
	reference string
	from, to  ledger.AccountSpec
}

// logLegs splits a log into transfers that each touch one tenant's rows: the chain's world
// side becomes the share of the wallet's tenant (ledger.Share), and a log between wallets of
// two tenants becomes two legs through the between-tenants account, the sender's under the
// log's reference and the recipient's under it suffixed with ":in" (docs/ledger.md, "Money
// between tenants"). The mirror posts both in one unit: they are one fact of the chain.
func logLegs(env core.Environment, reference string, from, to ledger.AccountSpec) []logLeg {
	fromHome, toHome := specHome(from), specHome(to)
	switch {
	case fromHome == "" && toHome != "":
		from = ledger.Share(from, toHome)
	case toHome == "" && fromHome != "":
		to = ledger.Share(to, fromHome)
	case fromHome != "" && toHome != "" && fromHome != toHome:
		between := ledger.BetweenTenants(env, ledger.AssetUSDC)
		return []logLeg{{reference, from, ledger.Share(between, fromHome)},
			{reference + chainInLegSuffix, ledger.Share(between, toHome), to}}
	}
	return []logLeg{{reference, from, to}}
}

// specHome is the tenant an account lives with (ledger.Account.Home) before it is opened.
func specHome(spec ledger.AccountSpec) string {
	if spec.TenantID != "" {
		return spec.TenantID
	}
	_, tenant, _ := ledger.ShareOf(spec.Reference)
	return tenant
}

// chainInLegSuffix marks the recipient's leg of a log between two tenants' wallets.
const chainInLegSuffix = ":in"

// settlementSource is the issuer clearing account a card settlement pays from: the card
// tenant's share, or the platform account proper when the share does not hold the amount and
// the platform account does (a capture booked before clearing was split per tenant): the
// settlement finds the money where the capture left it.
func settlementSource(ctx context.Context, tx txView, platform ledger.AccountSpec, tenantID string, amount int64) (ledger.AccountSpec, error) {
	share := ledger.Share(platform, tenantID)
	if tenantID == "" {
		return platform, nil
	}
	have := func(spec ledger.AccountSpec) (bool, error) {
		home := ledger.Account{TenantID: spec.TenantID, Reference: spec.Reference}.Home()
		acc, err := tx.Ledger().FindAccountByReference(ctx, spec.Environment, spec.Asset, home, spec.Reference)
		if core.HasCode(err, core.CodeAccountNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		b, err := tx.Ledger().Balances(ctx, []string{acc.ID})
		return b[acc.ID].Posted-b[acc.ID].PendingDebits >= amount, err
	}
	if ok, err := have(share); ok || err != nil {
		return share, err
	}
	if ok, err := have(platform); ok || err != nil {
		return platform, err
	}
	return share, nil
}

// postLogLeg posts one transfer of a log and reports whether it was new. A reference posted
// from another block (one a reorg dropped, its transfer reversed, before the transaction was
// mined again here) is posted again under the reference suffixed with the new block's hash.
func postLogLeg(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.TransferLog, leg logLeg, amount int64, now time.Time) (string, bool, error) {
	accounts, err := tx.Ledger().OpenAccounts(ctx, now, leg.from, leg.to)
	if err != nil {
		return "", false, err
	}
	t, replayed, err := postLog(ctx, tx, env, chainID, l, leg.reference, accounts, amount, now)
	if err == nil && replayed && t.Metadata["blockHash"] != l.BlockHash.Hex() {
		// A first posting that was not reversed means a reorg went unnoticed: fail loudly
		// rather than post the log twice.
		stored, serr := tx.Ledger().Transfer(ctx, env, ledger.HomeOf(t, accountsByID(accounts)), t.ID)
		if serr != nil {
			return "", false, serr
		}
		if stored.State.Status != ledger.StatusReversed {
			return "", false, fmt.Errorf("ledger mirror: %s was posted from block %s and is %s; not posting it again from block %s",
				leg.reference, t.Metadata["blockHash"], stored.State.Status, l.BlockHash.Hex())
		}
		t, replayed, err = postLog(ctx, tx, env, chainID, l, leg.reference+":"+l.BlockHash.Hex(), accounts, amount, now)
	}
	if err != nil {
		return "", false, err
	}
	return BlockItem(t.ID, ledger.HomeOf(t, accountsByID(accounts))), !replayed, nil
}

// BlockItem is how a dropped block's reversal finds a transfer the mirror posted: its id and
// its home (ledger.HomeOf), so the reversal locks it in its home without looking it up by id
// across every home. Blocks recorded before carry the id alone (ParseBlockItem).
func BlockItem(transferID, home string) string { return transferID + "@" + home }

// ParseBlockItem reads a BlockItem; an item of the id alone has the home "" (unknown).
func ParseBlockItem(item string) (transferID, home string) {
	transferID, home, _ = strings.Cut(item, "@")
	return transferID, home
}

// accountsByID indexes accounts by id (what ledger.HomeOf reads).
func accountsByID(accounts []ledger.Account) map[string]ledger.Account {
	out := make(map[string]ledger.Account, len(accounts))
	for _, a := range accounts {
		out[a.ID] = a
	}
	return out
}

func postLog(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.TransferLog, reference string, accounts []ledger.Account, amount int64, now time.Time) (ledger.Transfer, bool, error) {
	// A log the chain already mined is a fact, not a spend to decide (kernel.GuardLedger).
	return tx.Ledger().Post(kernel.RecordingChainFacts(ctx), now, ledger.TransferSpec{
		Reference: reference, Type: ledger.TypePosted,
		Environment: env, Asset: ledger.AssetUSDC,
		Postings: ledger.Move(accounts[0].ID, accounts[1].ID, amount),
		Metadata: map[string]string{
			"source": "chain", "chainId": strconv.FormatInt(chainID, 10),
			"txHash": l.TxHash.Hex(), "logIndex": strconv.FormatUint(uint64(l.LogIndex), 10),
			"blockNumber": strconv.FormatUint(l.BlockNumber, 10), "blockHash": l.BlockHash.Hex(),
			"from": l.From.Hex(), "to": l.To.Hex(),
		},
	})
}

// sideOf is the account an address moves USDC through: its wallet's, or the chain's world.
func sideOf(env core.Environment, chainID int64, address common.Address, wallets map[common.Address]ports.ChainWallet) ledger.AccountSpec {
	if w, ok := wallets[address]; ok {
		return ledger.WalletOnchain(env, ledger.AssetUSDC, w.TenantID, w.ID)
	}
	return ledger.World(env, ledger.AssetUSDC, ledger.ChainRail(chainID))
}

// USDCBaseUnits converts an on-chain USDC amount (a uint256) to the ledger's int64 base units.
// An amount above math.MaxInt64 (9.2 trillion USDC) is AMOUNT_OVERFLOW, never truncated.
func USDCBaseUnits(amount *big.Int) (int64, error) {
	switch {
	case amount == nil || amount.Sign() < 0:
		return 0, core.E(core.CodeValidationFailed, "on-chain amount %v is not a uint256", amount)
	case !amount.IsInt64():
		return 0, core.E(core.CodeAmountOverflow, "on-chain amount %s exceeds the ledger's int64 base units", amount)
	}
	return amount.Int64(), nil
}

// transferLogs fetches the USDC Transfer logs of wallets in blocks [from, to], in bounded
// queries (block ranges of MaxLogBlockRange, parties in batches of MaxLogParties), deduplicated
// and in chain order.
func transferLogs(ctx context.Context, c ports.Chain, from, to uint64, wallets []ports.ChainWallet) ([]ports.TransferLog, error) {
	if len(wallets) == 0 {
		return nil, nil
	}
	parties := make([]common.Address, len(wallets))
	for i, w := range wallets {
		parties[i] = common.HexToAddress(w.Address)
	}
	var logs []ports.TransferLog
	for start := from; start <= to; start += ports.MaxLogBlockRange {
		end := min(to, start+ports.MaxLogBlockRange-1)
		for i := 0; i < len(parties); i += ports.MaxLogParties {
			batch, err := c.USDCTransferLogs(ctx, start, end, parties[i:min(len(parties), i+ports.MaxLogParties)])
			if err != nil {
				return nil, err
			}
			logs = mergeLogs(logs, batch)
		}
		if end == to {
			break
		}
	}
	return logs, nil
}

// mergeLogs returns the union of two log lists in chain order, each log once.
func mergeLogs(a, b []ports.TransferLog) []ports.TransferLog {
	type key struct {
		tx    common.Hash
		index uint
	}
	seen := make(map[key]bool, len(a)+len(b))
	out := make([]ports.TransferLog, 0, len(a)+len(b))
	for _, l := range append(append([]ports.TransferLog{}, a...), b...) {
		if k := (key{l.TxHash, l.LogIndex}); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber < out[j].BlockNumber
		}
		if out[i].LogIndex != out[j].LogIndex {
			return out[i].LogIndex < out[j].LogIndex
		}
		return bytes.Compare(out[i].TxHash[:], out[j].TxHash[:]) < 0
	})
	return out
}

// EnqueueChainIndex asks for an indexer run of env now, in the caller's unit of work: a use case
// that knows USDC just moved (a confirmed faucet drip, a completed payment) calls it so the
// ledger catches up before the next periodic run. Requests are not deduplicated: a run that
// finds the cursor at the head costs two small reads, and a deduplicated request could be
// dropped for a twin that already ran before the caller's transfer was mined.
func (s *Service) EnqueueChainIndex(ctx context.Context, env core.Environment) error {
	if _, err := s.chains.Chain(env); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ChainIndexArgs{Environment: string(env)}, ports.JobOptions{MaxAttempts: 3})
}

// RequestChainIndex is EnqueueChainIndex in its own unit of work.
func (s *Service) RequestChainIndex(ctx context.Context, env core.Environment) error {
	return s.store.InTx(ctx, func(ctx context.Context, _ txView) error { return s.EnqueueChainIndex(ctx, env) })
}
