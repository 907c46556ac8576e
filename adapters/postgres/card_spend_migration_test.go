package postgres_test

import (
	"context"
	"testing"
)

// TestMigration_CardSpendOneRow migrates a database holding cards with spend windows from
// 000079 to 000080: each card's windows fold into one row holding its latest day, week and month
// with their spend (earlier windows' rows are dropped, a card without windows gets no row), the
// decision's read finds the spend in the current windows and none in later ones; the down
// migration gives the three windows' rows back.
func TestMigration_CardSpendOneRow(t *testing.T) {
	ctx := context.Background()
	db, m := migratorOn(ctx, t)
	if err := m.Migrate(79); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, name, slug, owner_user_id, created_at) VALUES ('ten_a', 'A', 'a', 'usr_a', now())`,
		`INSERT INTO cardholders (id, tenant_id, environment, name, email, created_at)
			VALUES ('chd_1', 'ten_a', 'TEST', 'A', 'a@example.com', now())`,
		`INSERT INTO cards (id, tenant_id, environment, funding, cardholder_id, issuer, issuer_card_id, last4, status,
			blocked_mcc, created_at, updated_at)
			SELECT id, 'ten_a', 'TEST', 'FUNDING_ACCOUNT', 'chd_1', 'sandbox', 'ic_' || id, '4242', 'active', '[]', now(), now()
			FROM unnest(ARRAY['crd_1', 'crd_2']) AS id`,
		`INSERT INTO card_spend_windows (tenant_id, card_id, window_key, spent_base_units) VALUES
			('ten_a', 'crd_1', '2026-11-30', 900), ('ten_a', 'crd_1', '2026-12-06', 500), ('ten_a', 'crd_1', '2026-12-05', 70),
			('ten_a', 'crd_1', '2026-W48', 1000), ('ten_a', 'crd_1', '2026-W49', 570),
			('ten_a', 'crd_1', '2026-11', 4000), ('ten_a', 'crd_1', '2026-12', 570)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Migrate(80); err != nil {
		t.Fatal(err)
	}
	type row struct {
		day, week, month       string
		daily, weekly, monthly int64
	}
	var got row
	var rows int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM card_spend`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("spend rows: %d (err %v), want 1 (crd_2 spent nothing)", rows, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT day_key, week_key, month_key, spent_daily, spent_weekly, spent_monthly
		FROM card_spend WHERE tenant_id = 'ten_a' AND card_id = 'crd_1'`).
		Scan(&got.day, &got.week, &got.month, &got.daily, &got.weekly, &got.monthly); err != nil {
		t.Fatal(err)
	}
	if want := (row{"2026-12-06", "2026-W49", "2026-12", 500, 570, 570}); got != want {
		t.Errorf("folded row %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		day, week, month       string
		daily, weekly, monthly int64
	}{
		{"2026-12-06", "2026-W49", "2026-12", 500, 570, 570},
		{"2026-12-07", "2026-W50", "2026-12", 0, 0, 570},
		{"2027-01-04", "2027-W01", "2027-01", 0, 0, 0},
	} {
		var daily, weekly, monthly int64
		if err := db.QueryRowContext(ctx, `SELECT spent_daily, spent_weekly, spent_monthly
			FROM card_lock_for_decision('ten_a', 'TEST', 'crd_1', $1, $2, $3)`, c.day, c.week, c.month).
			Scan(&daily, &weekly, &monthly); err != nil {
			t.Fatal(err)
		}
		if daily != c.daily || weekly != c.weekly || monthly != c.monthly {
			t.Errorf("decision's read in %s %s %s: %d %d %d, want %d %d %d", c.day, c.week, c.month,
				daily, weekly, monthly, c.daily, c.weekly, c.monthly)
		}
	}
	var spent int64
	if err := db.QueryRowContext(ctx, `SELECT spent_daily FROM card_lock_for_decision('ten_a', 'TEST', 'crd_2', '2026-12-06', '2026-W49', '2026-12')`).
		Scan(&spent); err != nil || spent != 0 {
		t.Errorf("a card without spend: %d (err %v), want 0", spent, err)
	}
	if err := m.Migrate(79); err != nil {
		t.Fatal(err)
	}
	var windows []string
	r, err := db.QueryContext(ctx, `SELECT window_key || '=' || spent_base_units FROM card_spend_windows ORDER BY window_key`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var w string
		if err := r.Scan(&w); err != nil {
			t.Fatal(err)
		}
		windows = append(windows, w)
	}
	if len(windows) != 3 || windows[0] != "2026-12=570" || windows[1] != "2026-12-06=500" || windows[2] != "2026-W49=570" {
		t.Errorf("at 000079: windows %v, want the current day, week and month", windows)
	}
}
