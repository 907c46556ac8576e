package faults

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/test/harness"
)

// sendSwallower is a chain node client that, once armed, takes the next transaction sent (it
// reaches the node's pool) and then stops answering: the send itself never returns an answer,
// and every call after it hangs until the test lets the node answer again. It sits under the
// stall switch (harness.Options.StallableChain) and the RPC time-out, as a real node would.
type sendSwallower struct {
	chain.Client

	mu       sync.Mutex
	armed    bool
	swallows []common.Hash
	sent     []sentTx // every transaction the node was given, in order
}

// sentTx is one transaction handed to the node.
type sentTx struct {
	hash common.Hash
	to   common.Address
}

// sentSince counts the distinct transactions sent to to after the first mark sends.
func (s *sendSwallower) sentSince(mark int, to common.Address) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	distinct := map[common.Hash]bool{}
	for _, tx := range s.sent[mark:] {
		if tx.to == to {
			distinct[tx.hash] = true
		}
	}
	return len(distinct)
}

// mark is the number of sends so far, for sentSince.
func (s *sendSwallower) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent)
}

// arm makes the next send the swallowed one.
func (s *sendSwallower) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed = true
}

// swallowed are the transactions the node took without answering.
func (s *sendSwallower) swallowed() []common.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]common.Hash(nil), s.swallows...)
}

func (s *sendSwallower) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	s.mu.Lock()
	take := s.armed
	s.armed = false
	if tx.To() != nil {
		s.sent = append(s.sent, sentTx{hash: tx.Hash(), to: *tx.To()})
	}
	s.mu.Unlock()
	if !take {
		return s.Client.SendTransaction(ctx, tx)
	}
	if err := s.Client.SendTransaction(ctx, tx); err != nil {
		return err
	}
	s.mu.Lock()
	s.swallows = append(s.swallows, tx.Hash())
	s.mu.Unlock()
	harness.Shared().StallChain(true)
	<-ctx.Done()
	return ctx.Err()
}
