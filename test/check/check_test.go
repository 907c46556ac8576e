package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// workload is what the checks look at: a delivered off-ramp payment (its reserve, lock, submit
// and deliver transfers), idempotent creates with stored answers, and a funded wallet whose
// ledger mirror the chain indexer keeps.
type workload struct {
	paymentID string
	walletID  string
}

func runWorkload(t *testing.T) workload {
	t.Helper()
	sender, recipient := env().NewTenant(t), env().NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "50"}).Expect(t, 201)
	phone := harness.Phone("415")
	rc := recipient.Root
	rc.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	alias := rc.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, rc, "phone_alias_verification", nil))
	rc.Post("/v1/phone-aliases/"+alias["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
	rc.With("Idempotency-Key", "check-dest-"+recipient.ID).Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201)
	pay := sender.Root.With("Idempotency-Key", "check-pay-"+sender.ID).
		Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "7"}).Expect(t, 201).JSON(t)
	id := pay["paymentId"].(string)
	routes := rc.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	rc.Post("/v1/offramp/payments/"+id+"/select-route", map[string]any{"routeQuoteId": routes[0].(map[string]any)["routeId"]}).Expect(t, 200)
	rc.Post("/v1/offramp/payments/"+id+"/confirm", nil).Expect(t, 200)
	harness.WaitOfframpPayment(t, sender.Root, id, "DELIVERED")
	owner := harness.NewOwner(t)
	w := sender.Root.With("Idempotency-Key", "check-wallet-"+sender.ID).Post("/v1/wallets", map[string]any{
		"name":   "check",
		"owners": []any{map[string]any{"address": owner.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	walletID := w["id"].(string)
	sender.Root.WaitWalletDeployed(t, walletID)
	sender.Root.Fund(t, walletID, "5")
	// A payment to a phone nobody verified opens a claim, funded in the escrow contract.
	claimPay := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("415"), "amountUsd": "3"}).
		Expect(t, 201).JSON(t)
	harness.WaitClaim(t, sender.Root, claimPay["claimId"].(string), "funded", func(c map[string]any) bool { return c["funded"] == true })
	// A cardholder card draws on the service balance: its approved authorization is a hold.
	holder := sender.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	cardID := sender.Root.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}).Expect(t, 201).JSON(t)["cardId"].(string)
	auth := sender.Root.Post("/v1/sandbox/cards/"+cardID+"/authorizations", map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "Corner Shop"}).
		Expect(t, 201).JSON(t)
	if auth["status"] != "APPROVED" {
		t.Fatalf("authorization %v", auth)
	}
	return workload{paymentID: id, walletID: walletID}
}

// corridorBinary builds the binary once per test run.
func corridorBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "corridor")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/corridorhq/corridor/cmd/corridor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runCheck runs `corridor check` against the package's database (no chain configured: the
// ledger-against-chain check is skipped there and run in-process below).
func runCheck(t *testing.T, bin string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "check")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+env().DatabaseURL, "CHAIN_RPC_URL=", "LIVE_CHAIN_RPC_URL=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out) + stderr.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// checkWithChain runs the checks in-process with the simulated chain serving TEST.
func checkWithChain(t *testing.T) postgres.InvariantReport {
	t.Helper()
	rep, err := postgres.CheckInvariants(context.Background(), env().Service.Store.DB(),
		map[core.Environment]ports.Chain{core.EnvTest: env().Chain})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func find(rep postgres.InvariantReport, prefix string) postgres.InvariantCheck {
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.Name, prefix) {
			return c
		}
	}
	return postgres.InvariantCheck{Name: "(missing " + prefix + ")", Problems: []string{"no such check"}}
}

// TestCheck_HealthyThenEachCorruption: after the workload `corridor check` exits 0 and the
// ledger agrees with the chain once the indexer caught up; then each corruption planted with
// SQL makes it exit 1 naming the check and the object, and reverting it makes it pass again.
// The tests of this package run one after the other: they plant on the shared database.
func TestCheck_HealthyThenEachCorruption(t *testing.T) {
	w := runWorkload(t)
	bin := corridorBinary(t)
	if out, code := runCheck(t, bin); code != 0 || !strings.Contains(out, "check OK") ||
		!strings.Contains(out, "SKIPPED ledger-vs-chain TEST: no chain configured") {
		t.Fatalf("healthy database: exit %d\n%s", code, out)
	}
	assertCitusLine(t, out0(t, bin))
	for _, name := range []string{"ledger-vs-chain TEST", "escrow-vs-chain TEST"} {
		harness.Poll(t, "the indexers caught up and "+name+" agrees", func() map[string]any {
			c := find(checkWithChain(t), name)
			return map[string]any{"skipped": c.Skipped, "problems": c.Problems}
		}, func(m map[string]any) bool { return m["skipped"] == "" && len(m["problems"].([]string)) == 0 })
	}

	conn, err := pgx.Connect(context.Background(), env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	assertSingleHome(t)
	waitLegJobsDone(t, conn)
	cases := corruptions(w)
	if onCitus(t) {
		cases = append(cases, citusCorruptions()...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec := func(sql string) {
				t.Helper()
				if _, err := conn.Exec(context.Background(), sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			exec(tc.plant)
			reverted := false
			defer func() {
				if !reverted {
					exec(tc.revert)
				}
			}()
			if tc.chain {
				c := find(checkWithChain(t), tc.check)
				if c.OK() || !strings.Contains(strings.Join(c.Problems, "\n"), tc.names) {
					t.Fatalf("check %s after planting: %+v; want a problem naming %s", tc.check, c, tc.names)
				}
			} else {
				out, code := runCheck(t, bin)
				if code != 1 || !strings.Contains(out, "FAILED  "+tc.check) || !strings.Contains(out, tc.names) || !strings.Contains(out, "check FAILED") {
					t.Fatalf("exit %d, want 1 with FAILED %s naming %s:\n%s", code, tc.check, tc.names, out)
				}
			}
			exec(tc.revert)
			reverted = true
			if out, code := runCheck(t, bin); code != 0 {
				t.Fatalf("after reverting: exit %d\n%s", code, out)
			}
		})
	}
}

// assertSingleHome: after the workload (a delivery into another tenant's balance, a funded
// wallet, a claim, a card hold) no transfer touches the rows of two homes.
func assertSingleHome(t *testing.T) {
	t.Helper()
	crossing, err := postgres.MultiHomeTransfers(context.Background(), env().Service.Store.DB())
	if err != nil {
		t.Fatal(err)
	}
	if len(crossing) > 0 {
		t.Fatalf("transfers across homes after the workload:\n%s", strings.Join(crossing, "\n"))
	}
}

// waitLegJobsDone waits for the jobs that finish deliveries between tenants to have run: a
// recipient leg planted missing is then a leg nothing will post, not one in flight.
func waitLegJobsDone(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	harness.Until(t, "the recipient legs' jobs completed", func() int {
		return countRows(t, conn, `SELECT count(*) FROM river_job WHERE kind = 'offramp.receive_delivery' AND state <> 'completed'`)
	}, func(n int) bool { return n == 0 })
}

func countRows(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// out0 is a healthy run's output.
func out0(t *testing.T, bin string) string {
	t.Helper()
	out, code := runCheck(t, bin)
	if code != 0 {
		t.Fatalf("healthy database: exit %d\n%s", code, out)
	}
	return out
}

func onCitus(t *testing.T) bool {
	t.Helper()
	ok, err := postgres.IsCitus(context.Background(), env().Service.Store.DB().DB)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// citusLine is the citus-distribution line of a healthy Citus cluster: shards on both workers.
var citusLine = regexp.MustCompile(`(?m)^ok      citus-distribution \(shard placements per worker: [0-9.]+:\d+ [1-9]\d*, [0-9.]+:\d+ [1-9]\d*\)$`)

// assertCitusLine: on Citus (make test's Citus pass) the citus-distribution line is ok and names
// both workers with shards; on PostgreSQL it is skipped, saying why.
func assertCitusLine(t *testing.T, out string) {
	t.Helper()
	if onCitus(t) {
		if !citusLine.MatchString(out) {
			t.Fatalf("want an ok citus-distribution line with shards on two workers:\n%s", out)
		}
		return
	}
	if !strings.Contains(out, "SKIPPED citus-distribution: plain PostgreSQL") {
		t.Fatalf("want citus-distribution skipped on PostgreSQL:\n%s", out)
	}
}

// citusCorruptions break the distribution: a distributed table turned back into a local one,
// a reference table made local, the lookup table (distributed by its value) put in the tenant
// tables' co-location group, and a table no placement plan names.
func citusCorruptions() []corruption {
	return []corruption{
		{name: "a tenant table no longer distributed",
			plant:  `SELECT undistribute_table('request_logs')`,
			revert: `SELECT create_distributed_table('request_logs', 'tenant_id', colocate_with => 'twofactor_settings')`,
			check:  "citus-distribution", names: "table request_logs should be distributed but is local to the coordinator"},
		{name: "a reference table made local",
			plant:  `SELECT undistribute_table('provider_events')`,
			revert: `SELECT create_reference_table('provider_events')`,
			check:  "citus-distribution", names: "table provider_events should be reference but is local to the coordinator"},
		{name: "the lookup table co-located with the tenant tables",
			plant:  `SELECT update_distributed_table_colocation('tenant_lookups', colocate_with => 'twofactor_settings')`,
			revert: `SELECT update_distributed_table_colocation('tenant_lookups', colocate_with => 'none')`,
			check:  "citus-distribution", names: "table tenant_lookups is a lookup by lookup_key but co-located with twofactor_settings"},
		{name: "a table outside the plan",
			plant:  `CREATE TABLE citus_stray (id int)`,
			revert: `DROP TABLE citus_stray`,
			check:  "citus-distribution", names: "table citus_stray has no placement in the distribution plan"},
	}
}

type corruption struct {
	name          string
	plant, revert string
	check, names  string
	chain         bool // checked in-process against the simulated chain
}

// corruptions plants one broken invariant each. Each plant saves what it changes into the
// table check_saved, and its revert restores it from there.
func corruptions(w workload) []corruption {
	p := w.paymentID
	transfer := func(step string) string {
		return fmt.Sprintf(`(SELECT id FROM ledger_transfers WHERE reference LIKE 'offramp:%s:%s:%%')`, p, step)
	}
	saveTransfers := func(ids ...string) string {
		return `CREATE TABLE check_saved AS SELECT id, reference, metadata FROM ledger_transfers WHERE id IN (` + strings.Join(ids, ", ") + `); `
	}
	const restoreTransfers = `UPDATE ledger_transfers t SET reference = s.reference, metadata = s.metadata FROM check_saved s WHERE t.id = s.id; DROP TABLE check_saved`
	account := `(SELECT account_id FROM ledger_postings WHERE transfer_id = ` + transfer("deliver") + ` ORDER BY account_id LIMIT 1)`
	escrowAccount := `(SELECT b.account_id FROM ledger_balances b JOIN ledger_accounts a ON a.id = b.account_id
		AND a.home_tenant_id = b.home_tenant_id WHERE a.kind = 'claim_escrow' AND b.posted > 0 ORDER BY a.id LIMIT 1)`
	payKey := `'check-pay-' || (SELECT sender_tenant_id FROM offramp_payments WHERE id = '` + p + `')`
	// The sender's share of the sandbox pool, which its deposit drew on.
	senderPool := `(SELECT id FROM ledger_accounts WHERE reference = 'platform:sandbox_pool@' ||
		(SELECT sender_tenant_id FROM offramp_payments WHERE id = '` + p + `'))`
	return []corruption{
		{name: "a balance that disagrees with its history",
			plant:  `UPDATE ledger_balances SET posted = posted + 1 WHERE account_id = ` + account,
			revert: `UPDATE ledger_balances SET posted = posted - 1 WHERE account_id = ` + account,
			check:  "ledger", names: "balance row"},
		{name: "a balance changed in one tenant's group",
			plant:  `UPDATE ledger_balances SET posted = posted + 1 WHERE account_id = ` + senderPool,
			revert: `UPDATE ledger_balances SET posted = posted - 1 WHERE account_id = ` + senderPool,
			check:  "trial-balance-per-tenant", names: "its balances sum to"},
		{name: "a broken hash chain",
			plant: `CREATE TABLE check_saved AS SELECT transfer_id, hash FROM ledger_chain WHERE transfer_id = ` + transfer("lock") + `;
				UPDATE ledger_chain SET hash = sha256(hash) WHERE transfer_id = ` + transfer("lock"),
			revert: `UPDATE ledger_chain c SET hash = s.hash FROM check_saved s WHERE c.transfer_id = s.transfer_id; DROP TABLE check_saved`,
			check:  "ledger", names: "hash chain broken"},
		{name: "a payout delivered twice",
			plant:  saveTransfers(transfer("submit")) + `UPDATE ledger_transfers SET reference = 'offramp:` + p + `:deliver:99' WHERE id IN (SELECT id FROM check_saved)`,
			revert: restoreTransfers,
			check:  "payouts-delivered-once", names: p + " delivered 2 times"},
		{name: "a claim released twice",
			plant: saveTransfers(transfer("lock"), transfer("deliver")) + `UPDATE ledger_transfers
				SET reference = 'offramp:` + p + `:claim-' || (CASE WHEN reference LIKE '%:lock:%' THEN 'lock' ELSE 'reject' END),
				metadata = metadata || '{"claimId":"clm_planted"}' WHERE id IN (SELECT id FROM check_saved)`,
			revert: restoreTransfers,
			check:  "claims-released-once", names: "claim clm_planted released 2 times"},
		{name: "a delivered payment without its deliver transfer",
			plant:  saveTransfers(transfer("deliver")) + `UPDATE ledger_transfers SET reference = 'offramp:` + p + `:planted' WHERE id IN (SELECT id FROM check_saved)`,
			revert: restoreTransfers,
			check:  "offramp-units-whole", names: p + " is DELIVERED without its deliver transfer"},
		{name: "a ledger effect of a payment that does not exist",
			plant: saveTransfers(transfer("reserve")) + `UPDATE ledger_transfers SET metadata = metadata || '{"offrampPaymentId":"ofp_planted"}'
				WHERE id IN (SELECT id FROM check_saved)`,
			revert: restoreTransfers,
			check:  "ledger-effects-owned", names: "ofp_planted, which does not exist"},
		{name: "an idempotency record without its effect",
			// The planted body is computed into the saved copy first: on Citus an UPDATE of a
			// distributed table may not call a STABLE function (convert_from) on its columns.
			plant: `CREATE TABLE check_saved AS SELECT key, body,
					convert_to(replace(convert_from(body, 'UTF8'), '` + p + `', 'ofp_planted'), 'UTF8') AS planted
				FROM idempotency_keys WHERE key = ` + payKey + `;
				UPDATE idempotency_keys i SET body = s.planted FROM check_saved s WHERE i.key = s.key`,
			revert: `UPDATE idempotency_keys i SET body = s.body FROM check_saved s WHERE i.key = s.key; DROP TABLE check_saved`,
			check:  "idempotency-effects", names: "answers ofp_planted, which does not exist"},
		{name: "a sender leg whose recipient leg is missing",
			plant: saveTransfers(transfer("receive")) + `UPDATE ledger_transfers SET metadata = metadata || '{"crossTenantLeg":"planted"}'
				WHERE id IN (SELECT id FROM check_saved)`,
			revert: restoreTransfers,
			check:  "cross-tenant-legs", names: "sender leg offramp:" + p + ":deliver:1 (transfer "},
		{name: "a posting outside its account's home",
			// Moved by delete and insert: Citus refuses to change a distributed row's key.
			plant: `CREATE TABLE check_saved AS SELECT p AS r FROM ledger_postings p
					WHERE transfer_id = ` + transfer("deliver") + ` AND account_id = ` + account + `;
				DELETE FROM ledger_postings p USING check_saved s
					WHERE p.transfer_id = (s.r).transfer_id AND p.account_id = (s.r).account_id
					AND p.home_tenant_id = (s.r).home_tenant_id;
				INSERT INTO ledger_postings SELECT x.* FROM check_saved s, jsonb_populate_record(NULL::ledger_postings,
					to_jsonb(s.r) || '{"home_tenant_id": "ten_planted"}') x`,
			revert: `DELETE FROM ledger_postings p USING check_saved s WHERE p.transfer_id = (s.r).transfer_id
					AND p.account_id = (s.r).account_id AND p.home_tenant_id = 'ten_planted';
				INSERT INTO ledger_postings SELECT (s.r).* FROM check_saved s; DROP TABLE check_saved`,
			check: "ledger-keys-across-homes", names: "lives in home 'ten_planted'"},
		{name: "a reversal of a transfer that does not exist",
			plant: `CREATE TABLE check_saved AS SELECT id FROM ledger_transfers WHERE id = ` + transfer("reserve") + `;
				UPDATE ledger_transfers SET reversed_id = 'trf_missing' WHERE id IN (SELECT id FROM check_saved)`,
			revert: `UPDATE ledger_transfers SET reversed_id = NULL WHERE id IN (SELECT id FROM check_saved); DROP TABLE check_saved`,
			check:  "ledger-keys-across-homes", names: "reverses trf_missing, which does not exist"},
		{name: "a card authorization without its hold",
			plant: `CREATE TABLE check_saved AS SELECT id, hold_transfer_id FROM card_authorizations WHERE status = 'APPROVED' ORDER BY id LIMIT 1;
				UPDATE card_authorizations SET hold_transfer_id = 'trf_planted' WHERE id IN (SELECT id FROM check_saved)`,
			revert: `UPDATE card_authorizations a SET hold_transfer_id = s.hold_transfer_id FROM check_saved s WHERE a.id = s.id; DROP TABLE check_saved`,
			check:  "card-holds-whole", names: "its hold transfer trf_planted is missing"},
		{name: "a completed payment whose hold still stands",
			plant: `INSERT INTO safe_payments (id, tenant_id, environment, source_wallet_id, safe_address, chain_id, destination_type,
					destination_address, destination_chain_id, asset, amount_base_units, status, safe_nonce, threshold, created_at, updated_at)
				SELECT 'pay_planted', tenant_id, environment, id, address, chain_id, 'address', address, chain_id, 'usdc', 1, 'COMPLETED', 999, 1,
					now() - interval '2 hours', now() - interval '2 hours' FROM wallets ORDER BY id LIMIT 1;
				INSERT INTO safe_payment_holds (tenant_id, payment_id, wallet_id, safe_nonce, amount_base_units, recipient, transfer_id, created_at)
				SELECT tenant_id, id, source_wallet_id, 999, 1, safe_address, 'trf_planted', created_at FROM safe_payments WHERE id = 'pay_planted'`,
			revert: `DELETE FROM safe_payment_holds WHERE payment_id = 'pay_planted'; DELETE FROM safe_payments WHERE id = 'pay_planted'`,
			check:  "payment-holds-settled", names: "payment pay_planted is COMPLETED since"},
		{name: "a claim escrow whose ledger drifts from the escrow contract",
			plant:  `UPDATE ledger_balances SET posted = posted + 1 WHERE account_id = ` + escrowAccount,
			revert: `UPDATE ledger_balances SET posted = posted - 1 WHERE account_id = ` + escrowAccount,
			check:  "escrow-vs-chain TEST", names: "claim escrow", chain: true},
		{name: "a wallet whose ledger mirror drifts from the chain",
			plant: `CREATE TABLE check_saved AS SELECT id, address FROM wallets WHERE id = '` + w.walletID + `';
				UPDATE wallets SET address = '0x00000000000000000000000000000000000C0FFE' WHERE id = '` + w.walletID + `'`,
			revert: `UPDATE wallets w SET address = s.address FROM check_saved s WHERE w.id = s.id; DROP TABLE check_saved`,
			check:  "ledger-vs-chain TEST", names: w.walletID, chain: true},
	}
}
