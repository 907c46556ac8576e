package ledger

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestBook_OpenAccount(t *testing.T) {
	book := NewBook()
	spec := TenantAvailable(core.EnvTest, AssetUSDC, "ten_1")
	first := mustOpen(t, book, spec)
	t.Run("opening the same reference again returns the account", func(t *testing.T) {
		again, err := book.OpenAccount(core.NewID(core.PrefixAccount), spec, t0.Add(time.Hour))
		if err != nil || again != first {
			t.Fatalf("again = %+v, %v; want %+v", again, err, first)
		}
	})
	t.Run("the same reference with another spec conflicts", func(t *testing.T) {
		other := spec
		other.NonNegative = false
		if _, err := book.OpenAccount(core.NewID(core.PrefixAccount), other, t0); codeOf(t, err) != core.CodeLedgerReferenceConflict {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the same reference in LIVE is another account", func(t *testing.T) {
		live := mustOpen(t, book, TenantAvailable(core.EnvLive, AssetUSDC, "ten_1"))
		if live.ID == first.ID {
			t.Fatal("LIVE and TEST share an account")
		}
	})
	t.Run("an account is found by id and by reference", func(t *testing.T) {
		byID, err := book.Account(first.ID)
		if err != nil || byID != first {
			t.Fatalf("Account = %+v, %v", byID, err)
		}
		byRef, err := book.FindAccount(core.EnvTest, AssetUSDC, TenantAvailableRef("ten_1"))
		if err != nil || byRef != first {
			t.Fatalf("FindAccount = %+v, %v", byRef, err)
		}
		if _, err := book.FindAccount(core.EnvTest, AssetUSD, TenantAvailableRef("ten_1")); codeOf(t, err) != core.CodeAccountNotFound {
			t.Fatalf("another asset: %v", err)
		}
		if _, err := book.Account(core.NewID(core.PrefixAccount)); codeOf(t, err) != core.CodeAccountNotFound {
			t.Fatalf("unknown id: %v", err)
		}
	})
	t.Run("a new account has a zero balance", func(t *testing.T) {
		if b, err := book.Balance(first.ID); err != nil || b != (Balance{}) {
			t.Fatalf("balance = %+v, %v", b, err)
		}
	})
}

func TestBook_Post(t *testing.T) {
	book := NewBook()
	world := mustOpen(t, book, World(core.EnvTest, AssetUSDC, "bank"))
	alice := mustOpen(t, book, TenantAvailable(core.EnvTest, AssetUSDC, "ten_alice"))
	spec := postedSpec("deposit:1", Move(world.ID, alice.ID, 100)...)
	first, replayed, err := book.Post(spec, newTransferID(), t0)
	if err != nil || replayed {
		t.Fatalf("first post: %v, replayed %v", err, replayed)
	}
	t.Run("the same reference replays the first transfer", func(t *testing.T) {
		again, replayed, err := book.Post(spec, newTransferID(), t0.Add(time.Minute))
		if err != nil || !replayed || !reflect.DeepEqual(again, first) {
			t.Fatalf("replay = %+v, %v, %v", again, replayed, err)
		}
		if b, _ := book.Balance(alice.ID); b.Posted != 100 {
			t.Fatalf("replay moved money: %+v", b)
		}
	})
	t.Run("the same reference with other content conflicts and changes nothing", func(t *testing.T) {
		before := book.Balances()
		_, _, err := book.Post(postedSpec("deposit:1", Move(world.ID, alice.ID, 101)...), newTransferID(), t0)
		if codeOf(t, err) != core.CodeLedgerReferenceConflict || !reflect.DeepEqual(book.Balances(), before) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the same reference in LIVE is not a replay", func(t *testing.T) {
		_, _, err := book.Post(inLive(spec), newTransferID(), t0)
		if codeOf(t, err) != core.CodeAccountNotFound {
			t.Fatalf("err = %v, want ACCOUNT_NOT_FOUND (TEST accounts are invisible to LIVE)", err)
		}
	})
	t.Run("a refused transfer records nothing", func(t *testing.T) {
		chain := len(book.Chain())
		_, _, err := book.Post(postedSpec("spend:1", Move(alice.ID, world.ID, 101)...), newTransferID(), t0)
		if codeOf(t, err) != core.CodeInsufficientFunds || len(book.Chain()) != chain {
			t.Fatalf("err = %v, chain %d → %d", err, chain, len(book.Chain()))
		}
		// The reference stays free: the same request succeeds once funds suffice.
		if _, _, err := book.Post(postedSpec("spend:1", Move(alice.ID, world.ID, 100)...), newTransferID(), t0); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a reused transfer id is refused", func(t *testing.T) {
		_, _, err := book.Post(postedSpec("deposit:2", Move(world.ID, alice.ID, 1)...), first.ID, t0)
		if codeOf(t, err) != core.CodeInternal {
			t.Fatalf("err = %v", err)
		}
	})
	if problems := Audit(book.AuditInput()); len(problems) != 0 {
		t.Fatalf("audit: %+v", problems)
	}
}

// TestImports enforces docs/architecture.md's dependency rule for this package: the standard library and
// corridor/core only (tests may also use rapid).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			test := strings.HasSuffix(name, "_test.go")
			stdlib := !strings.Contains(strings.Split(path, "/")[0], ".") && !strings.HasPrefix(path, "corridor")
			io := path == "database/sql" || strings.HasPrefix(path, "net") || strings.HasPrefix(path, "os")
			ok := (stdlib && (test || !io)) || path == "github.com/corridorhq/corridor/core" || (test && path == "pgregory.net/rapid")
			if !ok {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

// A clone is a snapshot: what is written to the original after it does not reach the clone,
// so an in-memory unit of work can roll back to it.
func TestBook_CloneIsIndependent(t *testing.T) {
	book := NewBook()
	payer := mustOpen(t, book, World(core.EnvTest, AssetUSDC, "test"))
	payee := mustOpen(t, book, TenantAvailable(core.EnvTest, AssetUSDC, "ten_1"))
	snapshot := book.Clone()
	spec := TransferSpec{Reference: "clone:1", Type: TypePosted, Environment: core.EnvTest, Asset: AssetUSDC,
		Postings: Move(payer.ID, payee.ID, 5)}
	if _, _, err := book.Post(spec, core.NewID(core.PrefixTransfer), t0); err != nil {
		t.Fatal(err)
	}
	if b, _ := snapshot.Balance(payee.ID); b.Posted != 0 {
		t.Fatalf("the clone saw a later post: %+v", b)
	}
	if len(snapshot.Chain()) != 0 || len(book.Chain()) != 1 {
		t.Fatalf("chains: clone %d, book %d", len(snapshot.Chain()), len(book.Chain()))
	}
	if _, _, err := snapshot.Post(spec, core.NewID(core.PrefixTransfer), t0); err != nil {
		t.Fatalf("the clone refused a reference only the original recorded: %v", err)
	}
}
