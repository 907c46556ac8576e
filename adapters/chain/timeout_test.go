package chain

import (
	"context"
	"errors"
	"math/big"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// silentNode is a loopback listener that accepts connections, reads what it is sent and never
// answers: the failure a hung or overloaded RPC endpoint shows.
func silentNode(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go func() { _, _ = conn.Read(make([]byte, 1<<16)) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// isChainUnavailable is the check the HTTP adapter's error mapping makes.
func isChainUnavailable(err error) bool {
	var de *core.Error
	return errors.As(err, &de) && de.Code == core.CodeChainUnavailable
}

// TestDial_SilentNodeTimesOut: dialling an endpoint that never answers fails within the RPC
// deadline with CHAIN_UNAVAILABLE, although the caller's context has no deadline.
func TestDial_SilentNodeTimesOut(t *testing.T) {
	url := silentNode(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	const deadline = 300 * time.Millisecond
	start := time.Now()
	_, err = Dial(context.Background(), url, key, Addresses{}, DialOptions{RPCTimeout: deadline})
	took := time.Since(start)
	if err == nil {
		t.Fatal("dialling a silent node succeeded")
	}
	if !isChainUnavailable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want CHAIN_UNAVAILABLE wrapping the deadline", err)
	}
	if took > deadline+2*time.Second {
		t.Fatalf("Dial returned after %s, deadline %s", took, deadline)
	}
}

// TestWithRPCTimeout_EveryCallOfASilentNode: every call the adapter makes, through the real
// HTTP transport to a silent node, returns CHAIN_UNAVAILABLE within the deadline.
func TestWithRPCTimeout_EveryCallOfASilentNode(t *testing.T) {
	const deadline = 200 * time.Millisecond
	raw, err := dialRedacted(context.Background(), silentNode(t), deadline)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c := WithRPCTimeout(raw, deadline)
	addr := common.HexToAddress("0x01")
	hash := common.HexToHash("0x02")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Gas: 21000, To: &addr, Value: new(big.Int)})
	calls := map[string]func(ctx context.Context) error{
		"ChainID":        func(ctx context.Context) error { _, err := c.ChainID(ctx); return err },
		"BlockNumber":    func(ctx context.Context) error { _, err := c.BlockNumber(ctx); return err },
		"HeaderByNumber": func(ctx context.Context) error { _, err := c.HeaderByNumber(ctx, nil); return err },
		"CodeAt":         func(ctx context.Context) error { _, err := c.CodeAt(ctx, addr, nil); return err },
		"BalanceAt":      func(ctx context.Context) error { _, err := c.BalanceAt(ctx, addr, nil); return err },
		"CallContract": func(ctx context.Context) error {
			_, err := c.CallContract(ctx, ethereum.CallMsg{To: &addr}, nil)
			return err
		},
		"EstimateGas":      func(ctx context.Context) error { _, err := c.EstimateGas(ctx, ethereum.CallMsg{To: &addr}); return err },
		"SuggestGasTipCap": func(ctx context.Context) error { _, err := c.SuggestGasTipCap(ctx); return err },
		"PendingNonceAt":   func(ctx context.Context) error { _, err := c.PendingNonceAt(ctx, addr); return err },
		"FilterLogs":       func(ctx context.Context) error { _, err := c.FilterLogs(ctx, ethereum.FilterQuery{}); return err },
		"TransactionReceipt": func(ctx context.Context) error {
			_, err := c.TransactionReceipt(ctx, hash)
			return err
		},
		"TransactionByHash": func(ctx context.Context) error { _, _, err := c.TransactionByHash(ctx, hash); return err },
		"SendTransaction":   func(ctx context.Context) error { return c.SendTransaction(ctx, tx) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			err := call(context.Background())
			if !isChainUnavailable(err) {
				t.Fatalf("err = %v, want CHAIN_UNAVAILABLE", err)
			}
			if took := time.Since(start); took > deadline+time.Second {
				t.Fatalf("returned after %s, deadline %s", took, deadline)
			}
		})
	}
}

// TestWithRPCTimeout_OverloadedNode: a node answering HTTP 503 or 429 is unavailable too; a
// node that answers at all does so at once.
func TestWithRPCTimeout_OverloadedNode(t *testing.T) {
	for _, status := range []int{nethttp.StatusServiceUnavailable, nethttp.StatusTooManyRequests} {
		srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, _ *nethttp.Request) {
			w.WriteHeader(status)
		}))
		raw, err := dialRedacted(context.Background(), srv.URL, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		_, err = WithRPCTimeout(raw, time.Minute).BlockNumber(context.Background())
		raw.Close()
		srv.Close()
		if !isChainUnavailable(err) {
			t.Fatalf("HTTP %d: err = %v, want CHAIN_UNAVAILABLE", status, err)
		}
	}
}

// TestWithRPCTimeout_CallerCancellationPassesUnchanged: the caller ending its own context is
// not the node's fault and is not reported as CHAIN_UNAVAILABLE.
func TestWithRPCTimeout_CallerCancellationPassesUnchanged(t *testing.T) {
	raw, err := dialRedacted(context.Background(), silentNode(t), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = WithRPCTimeout(raw, time.Minute).BlockNumber(ctx)
	if err == nil || isChainUnavailable(err) {
		t.Fatalf("err = %v, want the caller's deadline, not CHAIN_UNAVAILABLE", err)
	}
}

// TestAdapter_StalledNode: an adapter whose node stops answering after start-up answers
// CHAIN_UNAVAILABLE within the deadline on reads and sends alike, and recovers when the node
// answers again.
func TestAdapter_StalledNode(t *testing.T) {
	const deadline = 250 * time.Millisecond
	var node Stallable
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := NewSimulated(ctx, SimulatedOptions{RPCTimeout: deadline,
		Intercept: func(c Client) Client { node = NewStallable(c); return node }})
	if err != nil {
		t.Fatalf("starting the simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	node.Stall(true)
	for name, call := range map[string]func(ctx context.Context) error{
		"LatestBlock":  func(ctx context.Context) error { _, err := a.LatestBlock(ctx); return err },
		"USDCBalance":  func(ctx context.Context) error { _, err := a.USDCBalance(ctx, recipient); return err },
		"SafeNonce":    func(ctx context.Context) error { _, err := a.SafeNonce(ctx, recipient); return err },
		"IsDeployed":   func(ctx context.Context) error { _, err := a.IsDeployed(ctx, recipient); return err },
		"TransferUSDC": func(ctx context.Context) error { _, err := a.TransferUSDC(ctx, recipient, big.NewInt(1)); return err },
		"Receipt": func(ctx context.Context) error {
			_, err := a.Receipt(ctx, common.HexToHash("0x03"))
			return err
		},
	} {
		start := time.Now()
		err := call(context.Background())
		if !isChainUnavailable(err) {
			t.Errorf("%s: err = %v, want CHAIN_UNAVAILABLE", name, err)
		}
		if took := time.Since(start); took > 4*deadline+time.Second {
			t.Errorf("%s returned after %s, deadline %s per call", name, took, deadline)
		}
	}
	node.Stall(false)
	if _, err := a.LatestBlock(context.Background()); err != nil {
		t.Fatalf("after the node answers again: %v", err)
	}
	var _ ports.Chain = a
}
