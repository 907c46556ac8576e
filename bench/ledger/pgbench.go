package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// ceilingScript is the equivalent raw SQL of one two-posting transfer, the way a hand-written
// client would do it: update the two balance rows (in id order, so clients cannot deadlock),
// insert the transfer, insert its two postings with the balances after them, commit. Six round
// trips with prepared statements, into the very tables, indexes and CHECK constraints the
// ledger writes (the transfer row with its posting arrays, the postings as account history,
// migration 000050; an empty canonical column and the chain-link trigger disabled). It does not look the reference up, lock and read the balances, run the engine or
// extend the hash chain: that difference is what the ratio measures. With hot=1 every transfer
// debits account 0, the ledger's hot account, as the hot scenario does.
const ceilingScript = `\set a random(1, :naccounts) * (1 - :hot)
\set d random(1, :naccounts - 1)
\set b 1 + (:a - 1 + :d) % :naccounts
\set lo least(:a, :b)
\set hi greatest(:a, :b)
\set amount random(1, 1000)
\set dlo case when :lo = :a then -:amount else :amount end
\set dhi -:dlo
BEGIN;
UPDATE ledger_balances SET posted = posted + :dlo, last_transfer_at = now() WHERE account_id = 'acc_bench' || lpad(:lo::text, 21, '0') RETURNING posted AS plo \gset
UPDATE ledger_balances SET posted = posted + :dhi, last_transfer_at = now() WHERE account_id = 'acc_bench' || lpad(:hi::text, 21, '0') RETURNING posted AS phi \gset
INSERT INTO ledger_transfers (id, environment, reference, type, asset, amount, metadata, created_at, status, canonical, posting_accounts, posting_amounts, home_tenant_id) VALUES ('trf_' || md5(random()::text), 'TEST', 'pgbench:' || gen_random_uuid(), 'POSTED', 'USDC', 0, '{}', now(), 'POSTED', ''::bytea, ARRAY['acc_bench' || lpad(:lo::text, 21, '0'), 'acc_bench' || lpad(:hi::text, 21, '0')], ARRAY[:dlo, :dhi]::int8[], 'ten_bench') RETURNING id AS tid, sequence AS tseq \gset
INSERT INTO ledger_postings (transfer_id, account_id, sequence, created_at, amount, posted_delta, pending_debits_delta, pending_credits_delta, posted_after, pending_debits_after, pending_credits_after, home_tenant_id, transfer_home_tenant_id) VALUES (:tid, 'acc_bench' || lpad(:lo::text, 21, '0'), :tseq, now(), :dlo, :dlo, 0, 0, :plo, 0, 0, 'ten_bench', 'ten_bench'), (:tid, 'acc_bench' || lpad(:hi::text, 21, '0'), :tseq, now(), :dhi, :dhi, 0, 0, :phi, 0, 0, 'ten_bench', 'ten_bench');
END;
`

// findPgbench looks where pgcluster looks for server binaries: PATH, then the newest
// versioned installation directory.
func findPgbench(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	var dirs []string
	for _, g := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"} {
		found, _ := filepath.Glob(g)
		dirs = append(dirs, found...)
	}
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		p := filepath.Join(d, "pgbench")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("pgbench not found: install PostgreSQL's client tools (e.g. apt-get install postgresql-contrib) or pass -pgbench")
}

func versionOf(dir string) int {
	base := strings.TrimPrefix(filepath.Base(filepath.Dir(dir)), "pgsql-")
	n, _ := strconv.Atoi(strings.SplitN(base, ".", 2)[0])
	return n
}

// ceiling is one pgbench measurement.
type ceiling struct {
	Concurrency           int     `json:"concurrency"`
	Hot                   bool    `json:"hot"`
	Transactions          int     `json:"transactions"`
	Seconds               float64 `json:"seconds"`
	TransactionsPerSecond float64 `json:"transactionsPerSecond"`
	P50Ms                 float64 `json:"p50Ms"`
	P99Ms                 float64 `json:"p99Ms"`
	// Processor time per transaction: PostgreSQL's and pgbench's (see result).
	ServerCPUMsPerTransfer float64 `json:"serverCpuMsPerTransfer"`
	ClientCPUMsPerTransfer float64 `json:"clientCpuMsPerTransfer"`
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// runPgbench runs the ceiling script at one concurrency and reads every transaction's latency
// from pgbench's per-transaction log.
func runPgbench(ctx context.Context, bin, url, dataDir string, o options, clients int, hot bool) (ceiling, error) {
	if err := linkTrigger(ctx, url, false); err != nil {
		return ceiling{}, err
	}
	defer func() { _ = linkTrigger(context.WithoutCancel(ctx), url, true) }()
	dir, err := os.MkdirTemp("", "bench-ledger-pgbench-")
	if err != nil {
		return ceiling{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "transfer.sql")
	if err := os.WriteFile(script, []byte(ceilingScript), 0o644); err != nil {
		return ceiling{}, err
	}
	threads := min(clients, 2)
	cmd := exec.CommandContext(ctx, bin, "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-T", strconv.Itoa(int(o.duration.Seconds())), "-f", script, "-D", "naccounts="+strconv.Itoa(o.accounts), "-D", "hot="+map[bool]string{false: "0", true: "1"}[hot],
		"-l", "--log-prefix="+filepath.Join(dir, "log"), url)
	cmd.Dir = dir
	server0 := serverCPU(dataDir)
	out, err := cmd.CombinedOutput()
	serverUsed := serverCPU(dataDir) - server0
	if err != nil {
		return ceiling{}, fmt.Errorf("%v: %s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return ceiling{}, fmt.Errorf("no tps in pgbench output: %s", out)
	}
	c := ceiling{Concurrency: clients, Hot: hot, Seconds: o.duration.Seconds()}
	c.TransactionsPerSecond, _ = strconv.ParseFloat(string(m[1]), 64)
	latencies, err := readPgbenchLogs(dir)
	if err != nil {
		return ceiling{}, err
	}
	c.Transactions = len(latencies)
	c.P50Ms, c.P99Ms = percentileMs(latencies, 0.50), percentileMs(latencies, 0.99)
	if server0 > 0 {
		c.ServerCPUMsPerTransfer = perTransferMs(serverUsed, c.Transactions)
		c.ClientCPUMsPerTransfer = perTransferMs(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime(), c.Transactions)
	}
	return c, nil
}

// linkTrigger turns the chain-link trigger off for the raw writes (the ceiling is the writes
// alone) and back on for the ledger scenarios that follow. The database is scratch.
func linkTrigger(ctx context.Context, url string, enable bool) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	verb := "DISABLE"
	if enable {
		verb = "ENABLE"
	}
	_, err = db.ExecContext(ctx, "ALTER TABLE ledger_transfers "+verb+" TRIGGER ledger_transfers_link")
	return err
}

// readPgbenchLogs reads "client transaction latency_us script epoch epoch_us" lines.
func readPgbenchLogs(dir string) ([]time.Duration, error) {
	files, err := filepath.Glob(filepath.Join(dir, "log.*"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pgbench transaction logs in %s", dir)
	}
	var out []time.Duration
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		s := bufio.NewScanner(fh)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				continue // "skipped" or "failed" transactions carry no latency
			}
			out = append(out, time.Duration(us)*time.Microsecond)
		}
		fh.Close()
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func execOutput(bin string, args ...string) (string, error) {
	out, err := exec.Command(bin, args...).Output()
	return string(out), err
}
