package ledger

import (
	"reflect"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

// bookWithHistory records: a deposit of 100 to alice, a hold of 60 alice → bob posted for 25,
// a hold of 10 left open, a move of 5 bob → alice that is then reversed.
func bookWithHistory(t *testing.T) (*Book, map[string]Account) {
	t.Helper()
	book := NewBook()
	acc := map[string]Account{
		"world": mustOpen(t, book, World(core.EnvTest, AssetUSDC, "bank")),
		"alice": mustOpen(t, book, TenantAvailable(core.EnvTest, AssetUSDC, "ten_alice")),
		"bob":   mustOpen(t, book, TenantAvailable(core.EnvTest, AssetUSDC, "ten_bob")),
		"live":  mustOpen(t, book, World(core.EnvLive, AssetUSDC, "bank")),
	}
	at := t0
	post := func(spec TransferSpec) Transfer {
		at = at.Add(time.Minute)
		tr, _, err := book.Post(spec, newTransferID(), at)
		if err != nil {
			t.Fatalf("%s: %v", spec.Reference, err)
		}
		return tr
	}
	post(postedSpec("deposit", Move(acc["world"].ID, acc["alice"].ID, 100)...))
	hold := post(pendingSpec("hold:1", acc["alice"].ID, acc["bob"].ID, 60, time.Time{}))
	post(postSpec("post:1", hold.ID, 25))
	post(pendingSpec("hold:2", acc["alice"].ID, acc["bob"].ID, 10, t0.Add(24*time.Hour)))
	move := post(postedSpec("move", Move(acc["bob"].ID, acc["alice"].ID, 5)...))
	post(reversalSpec("reverse", move.ID))
	return book, acc
}

func TestTrialBalance(t *testing.T) {
	book, acc := bookWithHistory(t)
	lines, err := TrialBalance(book.Accounts(), book.Balances())
	if err != nil {
		t.Fatal(err)
	}
	want := []TrialLine{
		{Environment: core.EnvLive, Asset: AssetUSDC, Accounts: 1},
		{Environment: core.EnvTest, Asset: AssetUSDC, Accounts: 3, PostedCredits: 100, PostedDebits: 100, PendingCredits: 10, PendingDebits: 10},
	}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("trial balance = %+v, want %+v", lines, want)
	}
	for _, l := range lines {
		if !l.Balanced() {
			t.Errorf("%+v is not balanced", l)
		}
	}
	t.Run("a tampered balance shows", func(t *testing.T) {
		balances := book.Balances()
		b := balances[acc["bob"].ID]
		b.Posted++
		balances[acc["bob"].ID] = b
		lines, _ := TrialBalance(book.Accounts(), balances)
		if lines[1].Balanced() {
			t.Fatalf("%+v is balanced", lines[1])
		}
	})
}

func TestRebuild(t *testing.T) {
	book, acc := bookWithHistory(t)
	rebuilt, err := Rebuild(book.History())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range book.Accounts() {
		if got, want := rebuilt.Balances[a.ID], book.Balances()[a.ID]; got != want {
			t.Errorf("%s: rebuilt %+v, stored %+v", a.Reference, got, want)
		}
	}
	if got := rebuilt.Balances[acc["alice"].ID]; got != (Balance{Posted: 75, PendingDebits: 10}) {
		t.Errorf("alice = %+v", got)
	}
	t.Run("as of an instant", func(t *testing.T) {
		asOf, err := Rebuild(AsOf(book.History(), t0.Add(2*time.Minute))) // deposit and first hold
		if err != nil {
			t.Fatal(err)
		}
		if got := asOf.Balances[acc["alice"].ID]; got != (Balance{Posted: 100, PendingDebits: 60}) {
			t.Fatalf("alice as of the hold = %+v", got)
		}
	})
	t.Run("a hold resolved twice is refused", func(t *testing.T) {
		h := book.History()
		twice := h[2]
		twice.ID, twice.Reference = newTransferID(), "post:again"
		if _, err := Rebuild(append(h, twice)); codeOf(t, err) != core.CodeInternal {
			t.Fatalf("err = %v, want INTERNAL", err)
		}
	})
	t.Run("a post before its hold is refused", func(t *testing.T) {
		h := book.History()
		if _, err := Rebuild([]Transfer{h[0], h[2]}); codeOf(t, err) != core.CodeTransferNotFound {
			t.Fatalf("err = %v, want TRANSFER_NOT_FOUND", err)
		}
	})
	t.Run("a hold posted after its expiry is refused", func(t *testing.T) {
		h := book.History()
		hold := h[3] // hold:2, which expires a day after t0
		late := Transfer{ID: newTransferID(), Reference: "post:late", Type: TypePostPending, Environment: core.EnvTest,
			Asset: AssetUSDC, PendingID: hold.ID, Amount: 10, Postings: hold.Postings, CreatedAt: hold.ExpiresAt}
		if _, err := Rebuild(append(h, late)); codeOf(t, err) != core.CodeInternal {
			t.Fatalf("err = %v, want INTERNAL", err)
		}
		late.CreatedAt = hold.ExpiresAt.Add(-time.Microsecond)
		if _, err := Rebuild(append(h, late)); err != nil {
			t.Fatalf("a post just before expiry: %v", err)
		}
	})
	t.Run("a transfer recorded twice is refused", func(t *testing.T) {
		h := book.History()
		if _, err := Rebuild(append(h, h[0])); codeOf(t, err) != core.CodeInternal {
			t.Fatalf("err = %v, want INTERNAL", err)
		}
	})
}

func TestAudit(t *testing.T) {
	book, acc := bookWithHistory(t)
	if problems := Audit(book.AuditInput()); len(problems) != 0 {
		t.Fatalf("clean book has problems: %+v", problems)
	}
	tests := []struct {
		name   string
		tamper func(in *AuditInput)
		want   Problem // the first problem's location
	}{
		{"a tampered balance row", func(in *AuditInput) {
			b := in.Balances[acc["bob"].ID]
			b.PendingCredits--
			in.Balances[acc["bob"].ID] = b
		}, Problem{AccountID: acc["bob"].ID}},
		{"a tampered state", func(in *AuditInput) {
			id := in.Chain[3].Transfer.ID // the open hold
			in.States[id] = TransferState{Status: StatusVoided}
		}, Problem{TransferID: "hold:2"}},
		{"a tampered posting", func(in *AuditInput) {
			in.Chain[0].Transfer.Postings = []Posting{{acc["alice"].ID, 101}, {acc["world"].ID, -101}}
		}, Problem{TransferID: "deposit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := book.AuditInput()
			tc.tamper(&in)
			problems := Audit(in)
			if len(problems) == 0 {
				t.Fatal("no problem found")
			}
			got := problems[0]
			if tc.want.AccountID != "" && got.AccountID != tc.want.AccountID {
				t.Fatalf("first problem %+v, want account %s", got, tc.want.AccountID)
			}
			if tc.want.TransferID != "" && transferReference(in, got.TransferID) != tc.want.TransferID {
				t.Fatalf("first problem %+v, want transfer %s", got, tc.want.TransferID)
			}
		})
	}
}

func transferReference(in AuditInput, id string) string {
	for _, e := range in.Chain {
		if e.Transfer.ID == id {
			return e.Transfer.Reference
		}
	}
	return ""
}
