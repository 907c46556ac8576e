package anchors

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/devchain"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// world is one anchor test's database of its own (tests tamper with it), a simulated chain
// served over HTTP (the command line reads it as it would a node) and a service on both.
type world struct {
	bin string // the corridor binary (withBinary)
	// chainEnv points the binary at the world's chain: node, relayer key, contracts.
	chainEnv []string
	url      string
	rpcURL   string
	chain    *chain.Adapter
	env      *harness.Env
	db       *sql.DB
}

func newWorld(t *testing.T, interval time.Duration) world {
	t.Helper()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sim, err := chain.NewSimulated(ctx, chain.SimulatedOptions{HTTPAddr: addr, RelayerKey: key})
	if err != nil {
		t.Fatalf("simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	url := testdb.NewDatabase(ctx, t)
	if _, err := wiring.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	env := harness.NewServerOn(t, url, func(c *wiring.Config) {
		c.ChainAdapters = map[core.Environment]ports.Chain{core.EnvTest: sim}
		c.LedgerAnchorInterval = interval
	})
	env.AwaitStartSweep(t) // its transfers are never "new" to a pass the test counts on
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	raw, err := json.Marshal(devchain.Recorded{ChainID: chain.SandboxChainID, Deployer: sim.RelayerAddress(), Addresses: sim.Addresses(), DeployedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	addresses := filepath.Join(t.TempDir(), devchain.AddressesFile)
	if err := os.WriteFile(addresses, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return world{url: url, rpcURL: "http://" + addr, chain: sim, env: env, db: db,
		chainEnv: []string{"CHAIN_RPC_URL=http://" + addr, "RELAYER_PRIVATE_KEY=" + hex.EncodeToString(crypto.FromECDSA(key)), "CHAIN_ADDRESSES_FILE=" + addresses}}
}

// withBinary builds the corridor binary for this test's commands.
func (w world) withBinary(t *testing.T) world {
	t.Helper()
	w.bin = filepath.Join(t.TempDir(), "corridor")
	if out, err := exec.Command("go", "build", "-o", w.bin, "github.com/corridorhq/corridor/cmd/corridor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return w
}

func (w world) deposit(t *testing.T, ten *harness.Tenant, amounts ...string) {
	t.Helper()
	for _, a := range amounts {
		ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": a}).Expect(t, 201)
	}
}

func (w world) anchor(t *testing.T) postgres.LedgerAnchor {
	t.Helper()
	a, err := w.env.Service.AnchorLedger(context.Background())
	if err != nil {
		t.Fatalf("anchor pass: %v", err)
	}
	return a
}

func (w world) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := w.db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// corridor runs the binary against the world's database and node: its output and exit code.
func (w world) corridor(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = append(append(os.Environ(), "DATABASE_URL="+w.url), w.chainEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out) + stderr.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return string(out), 0
}

// TestAnchors_RecordedOnChain: an anchor pass records one root over every chain head (both
// environments' stripes), with the transfers' sequence range, and the transaction that carries
// it once mined; a pass with no new transfer anchors nothing; the next anchor starts where the
// previous one ended.
func TestAnchors_RecordedOnChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain of its own")
	}
	t.Parallel()
	w := newWorld(t, -1)
	ten := w.env.NewTenant(t)
	w.deposit(t, ten, "10", "2.5", "0.000001")
	first := w.anchor(t)
	if first.ID == 0 || !first.Mined() || first.BlockNumber == 0 || len(first.TxHash) != 66 {
		t.Fatalf("first anchor %+v", first)
	}
	if len(first.Heads) != 2*postgres.ChainStripes {
		t.Fatalf("%d heads, want every stripe of both environments (%d)", len(first.Heads), 2*postgres.ChainStripes)
	}
	var covered int64
	for _, h := range first.Heads {
		covered += h.Position
		if h.Position > 0 && (h.FirstSequence == 0 || h.LastSequence < h.FirstSequence || h.FromPosition != 1) {
			t.Fatalf("head %+v: no sequence range", h)
		}
	}
	if covered < 3 {
		t.Fatalf("the anchor covers %d transfers, at least the 3 deposits were posted", covered)
	}
	data, block, err := w.chain.AnchorTransaction(context.Background(), common.HexToHash(first.TxHash))
	if err != nil || block != first.BlockNumber {
		t.Fatalf("on chain: block %d, %v", block, err)
	}
	if root, ok := ledger.ParseAnchorPayload(data); !ok || fmt.Sprintf("%x", root) != fmt.Sprintf("%x", first.Root) {
		t.Fatalf("the transaction carries %x, the anchor's root is %x", data, first.Root)
	}
	if again := w.anchor(t); again.ID != 0 {
		t.Fatalf("a pass with nothing new anchored %+v", again)
	}
	// The state gauges are read at most once per 5 s (metrics.DefaultMinInterval): await the
	// read that sees the mined anchor rather than a cached one from before it.
	var metrics string
	harness.Eventually(t, "the metrics show the mined anchor", func() bool {
		metrics = w.env.Metrics(t)
		return strings.Contains(metrics, "corridor_ledger_anchor_open_age_seconds 0") &&
			!strings.Contains(metrics, "\ncorridor_ledger_anchor_last_mined_timestamp_seconds 0\n")
	})
	for _, line := range []string{`corridor_metrics_source_up{source="anchors"} 1`, "corridor_ledger_anchor_open_age_seconds 0"} {
		if !strings.Contains(metrics, line) {
			t.Fatalf("metrics lack %q:\n%s", line, metrics)
		}
	}
	_, value, _ := strings.Cut(metrics, "\ncorridor_ledger_anchor_last_mined_timestamp_seconds ")
	value, _, _ = strings.Cut(value, "\n")
	// The database keeps microseconds (rounded), the pass's clock nanoseconds.
	if mined, err := strconv.ParseFloat(value, 64); err != nil || math.Abs(mined-float64(first.MinedAt.UnixNano())/1e9) > 0.001 {
		t.Fatalf("last mined anchor metric %q (%v), the anchor was mined at %s", value, err, first.MinedAt)
	}
	w.deposit(t, ten, "1")
	second := w.anchor(t)
	if second.ID != first.ID+1 || !second.Mined() {
		t.Fatalf("second anchor %+v", second)
	}
	before := map[string]int64{}
	for _, h := range first.Heads {
		before[fmt.Sprintf("%s/%d", h.Environment, h.Stripe)] = h.Position
	}
	for _, h := range second.Heads {
		if h.FromPosition != before[fmt.Sprintf("%s/%d", h.Environment, h.Stripe)]+1 {
			t.Fatalf("head %+v does not start after the first anchor's", h)
		}
	}
}

// TestAnchors_VerifyCatchesRewrites runs `corridor ledger verify --anchors`: exit 0 with the
// last anchor named on an honest journal; after a transfer the anchors cover is changed by SQL,
// exit 1 naming the anchor; and still exit 1 after whoever changed it also recomputed every
// stored hash of its chain, so that the plain check passes: only the anchor, on chain, tells.
// `corridor check` reports the same as its ledger-anchors line.
func TestAnchors_VerifyCatchesRewrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the corridor binary and starts a chain of its own")
	}
	t.Parallel()
	w := newWorld(t, -1).withBinary(t)
	ten := w.env.NewTenant(t)
	w.deposit(t, ten, "10", "20", "30")
	first := w.anchor(t)
	w.deposit(t, ten, "40")
	last := w.anchor(t)
	out, code := w.corridor(t, "ledger", "verify", "--anchors")
	want := fmt.Sprintf("anchors OK: 2 anchors match the journal and the chain; the last, %d, is transaction %s in block %d", last.ID, last.TxHash, last.BlockNumber)
	if code != 0 || !strings.Contains(out, "ledger OK") || !strings.Contains(out, want) {
		t.Fatalf("honest journal: exit %d\n%s\nwant %q", code, out, want)
	}
	// Without a node to read the transactions from, nothing is proven on chain, but nothing
	// was changed either: the report says so and does not call the journal rewritten.
	noNode := world{bin: w.bin, url: w.url, chainEnv: []string{"CHAIN_RPC_URL=", "RELAYER_PRIVATE_KEY=", "CHAIN_ADDRESSES_FILE="}}
	out, code = noNode.corridor(t, "ledger", "verify", "--anchors")
	if code != 1 || !strings.Contains(out, "ledger OK") || strings.Contains(out, "BROKEN") || strings.Contains(out, "was changed") ||
		!strings.Contains(out, "anchors NOT VERIFIED") || !strings.Contains(out, "set CHAIN_RPC_URL") {
		t.Fatalf("honest journal, no node: exit %d\n%s", code, out)
	}
	checkLine := regexp.MustCompile(`(?m)^ok      ledger-anchors \(2 anchors, the last in block \d+\)$`)
	if out, _ := w.corridor(t, "check"); !checkLine.MatchString(out) {
		t.Fatalf("corridor check on the honest journal:\n%s", out)
	}
	out, code = w.corridor(t, "ledger", "anchors")
	for _, a := range []postgres.LedgerAnchor{first, last} {
		if line := fmt.Sprintf("anchor %d  root %x  chain %d  tx %s  block %d", a.ID, a.Root, a.ChainID, a.TxHash, a.BlockNumber); code != 0 || !strings.Contains(out, line) {
			t.Fatalf("ledger anchors: exit %d\n%s\nwant a line starting %q", code, out, line)
		}
	}
	if !strings.Contains(out, "TEST sequences 1..") {
		t.Fatalf("ledger anchors shows no sequence span:\n%s", out)
	}
	var victim string
	if err := w.db.QueryRow(`SELECT id FROM ledger_transfers ORDER BY sequence LIMIT 1`).Scan(&victim); err != nil {
		t.Fatal(err)
	}
	w.exec(t, `UPDATE ledger_transfers SET metadata = metadata || '{"note": "rewritten"}' WHERE id = $1`, victim)
	out, code = w.corridor(t, "ledger", "verify", "--anchors")
	if code != 1 || !strings.Contains(out, "anchors BROKEN") || !strings.Contains(out, fmt.Sprintf("anchor %d:", first.ID)) {
		t.Fatalf("tampered journal: exit %d\n%s", code, out)
	}
	w.rehashChainOf(t, victim)
	out, code = w.corridor(t, "ledger", "verify", "--anchors")
	if code != 1 || !strings.Contains(out, "ledger OK") || !strings.Contains(out, "anchors BROKEN") ||
		!strings.Contains(out, "recomputed from the journal differs from the anchored head") {
		t.Fatalf("rewritten journal with its hashes recomputed: exit %d\n%s", code, out)
	}
	if out, code := w.corridor(t, "check"); code != 1 || !strings.Contains(out, "FAILED  ledger-anchors") {
		t.Fatalf("corridor check on the rewritten journal: exit %d\n%s", code, out)
	}
}

// rehashChainOf recomputes every stored hash of the victim's chain from the transfers as they
// now read, as someone with database access covering a rewrite would.
func (w world) rehashChainOf(t *testing.T, victim string) {
	t.Helper()
	var env string
	var stripe int
	if err := w.db.QueryRow(`SELECT environment, stripe FROM ledger_chain WHERE transfer_id = $1`, victim).Scan(&env, &stripe); err != nil {
		t.Fatal(err)
	}
	rows, err := w.db.Query(`SELECT c.transfer_id, t.home_tenant_id FROM ledger_chain c JOIN ledger_transfers t ON t.id = c.transfer_id
		WHERE c.environment = $1 AND c.stripe = $2 ORDER BY c.position`, env, stripe)
	if err != nil {
		t.Fatal(err)
	}
	var ids, homes []string
	for rows.Next() {
		var id, home string
		if err := rows.Scan(&id, &home); err != nil {
			t.Fatal(err)
		}
		ids, homes = append(ids, id), append(homes, home)
	}
	rows.Close()
	store := w.env.Service.Store
	var prev []byte
	for i, id := range ids {
		err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			st, err := tx.Ledger().Transfer(ctx, core.Environment(env), homes[i], id)
			prev = ledger.ChainHash(prev, st.Transfer)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		w.exec(t, `UPDATE ledger_chain SET hash = $1 WHERE transfer_id = $2`, prev, id)
	}
	w.exec(t, `UPDATE ledger_chain_heads SET hash = $1 WHERE environment = $2 AND stripe = $3`, prev, env, stripe)
	if v, err := postgres.VerifyLedger(context.Background(), store.DB()); err != nil || !v.OK() {
		t.Fatalf("the rewrite is not covered for the plain check: %+v %v", v, err)
	}
}

// TestAnchors_ProofChecksWithoutCorridor: `corridor ledger proof --anchor N` exports, for every
// chain, the transfers the anchor added, the previous head, the Merkle path and the
// transaction; the auditor in this package (no project code) recomputes the chain hashes from
// the rows, folds the paths to the root and finds the root in the transaction on chain. The
// second anchor's proof starts from the heads of the first; a changed exported row fails.
func TestAnchors_ProofChecksWithoutCorridor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the corridor binary and starts a chain of its own")
	}
	t.Parallel()
	w := newWorld(t, -1).withBinary(t)
	ten := w.env.NewTenant(t)
	w.deposit(t, ten, "1", "2", "3", "4", "5")
	first := w.anchor(t)
	w.deposit(t, ten, "6", "7")
	second := w.anchor(t)
	proofs := map[int64]auditProof{}
	for _, id := range []int64{first.ID, second.ID} {
		out, code := w.corridor(t, "ledger", "proof", "--anchor", fmt.Sprint(id))
		if code != 0 {
			t.Fatalf("proof %d: exit %d\n%s", id, code, out)
		}
		var p auditProof
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("proof %d: %v\n%s", id, err, out)
		}
		runDocumentedAuditor(t, out, w.rpcURL, true)
		if err := audit(context.Background(), p, w.rpcURL); err != nil {
			t.Fatalf("proof %d does not check: %v", id, err)
		}
		proofs[id] = p
	}
	var rows int
	for i, c := range proofs[second.ID].Chains {
		if c.PreviousHead != proofs[first.ID].Chains[i].Head {
			t.Fatalf("chain %s/%d: the second proof starts from %s, the first anchored %s", c.Environment, c.Stripe, c.PreviousHead, proofs[first.ID].Chains[i].Head)
		}
		rows += len(c.Transfers)
	}
	if rows < 2 {
		t.Fatalf("the second proof carries %d transfers, 2 deposits were posted after the first anchor", rows)
	}
	tampered := proofs[second.ID]
	for i := range tampered.Chains {
		if len(tampered.Chains[i].Transfers) > 0 {
			tampered.Chains[i].Transfers[0].Amount++
			break
		}
	}
	if err := audit(context.Background(), tampered, w.rpcURL); err == nil {
		t.Fatal("the auditor accepted a changed row")
	}
	raw, err := json.Marshal(tampered)
	if err != nil {
		t.Fatal(err)
	}
	runDocumentedAuditor(t, string(raw), w.rpcURL, false)
	if _, code := w.corridor(t, "ledger", "proof", "--anchor", "99"); code == 0 {
		t.Fatal("a proof of an anchor that does not exist succeeded")
	}
}

// TestAnchors_PeriodicAndCrashSafe: with LEDGER_ANCHOR_INTERVAL set, the periodic job anchors
// new transfers by itself; and an anchor whose transaction was sent but not recorded (a crash
// between the two) is finished with that transaction, not sent twice.
func TestAnchors_PeriodicAndCrashSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain of its own")
	}
	t.Parallel()
	w := newWorld(t, 500*time.Millisecond)
	ten := w.env.NewTenant(t)
	w.deposit(t, ten, "3")
	var lastSequence int64
	if err := w.db.QueryRow(`SELECT max(sequence) FROM ledger_transfers`).Scan(&lastSequence); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "a periodic anchor covering the deposit", func() bool {
		var n int
		err := w.db.QueryRow(`SELECT count(*) FROM ledger_anchors a, jsonb_array_elements(a.heads) h
			WHERE a.mined_at IS NOT NULL AND (h->>'lastSequence')::bigint >= $1`, lastSequence).Scan(&n)
		return err == nil && n > 0
	})
	// A crash between the send and its record: the transaction is out, the anchor says none.
	if err := w.env.Service.StopWorkers(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.deposit(t, ten, "4")
	anchors := postgres.NewLedgerAnchors(w.env.Service.Store.DB())
	open, ok, err := anchors.Prepare(context.Background(), time.Now().UTC(), "TEST", chain.SandboxChainID)
	if err != nil || !ok {
		t.Fatalf("prepare: %v %v", ok, err)
	}
	sent, err := w.chain.SendAnchor(context.Background(), open.ID, open.Payload)
	if err != nil {
		t.Fatal(err)
	}
	closed := w.anchor(t)
	if closed.ID != open.ID || closed.TxHash != strings.ToLower(sent.Hex()) {
		t.Fatalf("the pass closed %+v, want anchor %d with %s", closed, open.ID, sent.Hex())
	}
	var sends int
	if err := w.db.QueryRow(`SELECT count(*) FROM relayer_transactions WHERE data = $1`, open.Payload).Scan(&sends); err != nil || sends != 1 {
		t.Fatalf("%d transactions carry the anchor's payload (%v), want 1", sends, err)
	}
}

// runDocumentedAuditor runs the Python auditor's script printed in docs/ledger.md on a proof,
// so the documented recipe cannot drift from what the product exports (skipped without
// python3 on the machine; the Go auditor above checks the same proof regardless).
func runDocumentedAuditor(t *testing.T, proofJSON, rpcURL string, wantOK bool) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not installed: the documented auditor's script is not run")
		return
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs/ledger.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "The auditor's script")
	if ok {
		_, after, ok = strings.Cut(after, "```python\n")
	}
	script, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal("docs/ledger.md holds no auditor's script")
	}
	dir := t.TempDir()
	scriptPath, proofPath := filepath.Join(dir, "audit.py"), filepath.Join(dir, "proof.json")
	if err := os.WriteFile(scriptPath, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(proofPath, []byte(proofJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, scriptPath, proofPath, rpcURL).CombinedOutput()
	if accepted := err == nil && strings.Contains(string(out), "proves"); accepted != wantOK {
		t.Fatalf("the documented auditor's script: accepted %v, want %v: %v\n%s", accepted, wantOK, err, out)
	}
}
