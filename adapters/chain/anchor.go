package chain

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// SendAnchor sends the ledger anchor anchorID: a transaction of zero value from the relayer to
// itself whose data is payload (ledger.AnchorPayload). No contract is involved, so any EVM chain
// carries it and any explorer shows the root as the transaction's input. The idempotency key
// makes a retry in this process return the transaction already sent; across restarts the anchor
// pass looks the payload up in the relayer's transaction log first.
func (a *Adapter) SendAnchor(ctx context.Context, anchorID int64, payload []byte) (common.Hash, error) {
	to := a.relay.from
	return a.relay.sendOnce(ctx, fmt.Sprintf("anchor:%d", anchorID), nil, call{to: &to, data: payload})
}

// AnchorTransaction reads an anchor's transaction from this adapter's chain (see
// ReadAnchorTransaction).
func (a *Adapter) AnchorTransaction(ctx context.Context, hash common.Hash) ([]byte, uint64, error) {
	return ReadAnchorTransaction(ctx, a.relay.client, hash)
}

// ReadAnchorTransaction returns a mined, successful transaction's data and block number: what
// `corridor ledger verify --anchors` compares with the journal.
func ReadAnchorTransaction(ctx context.Context, client ethereum.TransactionReader, hash common.Hash) ([]byte, uint64, error) {
	tx, pending, err := client.TransactionByHash(ctx, hash)
	if errors.Is(err, ethereum.NotFound) {
		return nil, 0, fmt.Errorf("transaction %s is not on this chain", hash.Hex())
	}
	if err != nil {
		return nil, 0, fmt.Errorf("chain: transaction %s: %w", hash.Hex(), err)
	}
	if pending {
		return nil, 0, fmt.Errorf("transaction %s is not mined", hash.Hex())
	}
	receipt, err := client.TransactionReceipt(ctx, hash)
	if err != nil {
		return nil, 0, fmt.Errorf("chain: receipt of %s: %w", hash.Hex(), err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		return nil, 0, fmt.Errorf("transaction %s failed on chain", hash.Hex())
	}
	return tx.Data(), receipt.BlockNumber.Uint64(), nil
}

// AnchorReader is a read-only connection to a node for the anchor check of the operator's
// command line, which holds no relayer key.
type AnchorReader struct {
	client  *ethclient.Client
	ChainID int64
}

// DialAnchorReader connects to rpcURL (redacted in errors, as Dial does) and reads its chain id.
func DialAnchorReader(ctx context.Context, rpcURL string) (*AnchorReader, error) {
	client, err := dialRedacted(ctx, rpcURL, DefaultRPCTimeout)
	if err != nil {
		return nil, err
	}
	id, err := client.ChainID(ctx)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("chain: chain id of %s: %w", redactedURL(rpcURL), err)
	}
	return &AnchorReader{client: client, ChainID: id.Int64()}, nil
}

// Read is ReadAnchorTransaction on the reader's node.
func (r *AnchorReader) Read(ctx context.Context, hash common.Hash) ([]byte, uint64, error) {
	return ReadAnchorTransaction(ctx, r.client, hash)
}

// Close closes the connection.
func (r *AnchorReader) Close() { r.client.Close() }
