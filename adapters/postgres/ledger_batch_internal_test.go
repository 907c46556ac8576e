package postgres

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestPostingArrays: the array literals the pipeline sends for a transfer's posting columns
// read back, through PostgreSQL's array syntax, as the accounts and amounts in their order,
// whatever characters an account id holds.
func TestPostingArrays(t *testing.T) {
	postings := []bufferedPosting{
		{accountID: "acc_01", amount: -12},
		{accountID: `acc "quoted", {braced} \ back`, amount: 5},
		{accountID: "NULL", amount: 7},
		{accountID: "", amount: 9223372036854775807},
	}
	accounts, amounts := postingArrays(postings)
	var gotAccounts []string
	if err := typeMap.Scan(pgtype.TextArrayOID, pgtype.TextFormatCode, []byte(accounts), &gotAccounts); err != nil {
		t.Fatalf("%s: %v", accounts, err)
	}
	var gotAmounts []int64
	if err := typeMap.Scan(pgtype.Int8ArrayOID, pgtype.TextFormatCode, []byte(amounts), &gotAmounts); err != nil {
		t.Fatalf("%s: %v", amounts, err)
	}
	for i, p := range postings {
		if i >= len(gotAccounts) || i >= len(gotAmounts) || gotAccounts[i] != p.accountID || gotAmounts[i] != p.amount {
			t.Fatalf("%s %s read back as %q %v", accounts, amounts, gotAccounts, gotAmounts)
		}
	}
	if len(gotAccounts) != len(postings) || !slices.Equal(gotAmounts, []int64{-12, 5, 7, 9223372036854775807}) {
		t.Fatalf("%s %s read back as %q %v", accounts, amounts, gotAccounts, gotAmounts)
	}
}
