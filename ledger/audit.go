package ledger

import (
	"fmt"
	"sort"
)

// Problem is one discrepancy Audit found. TransferID or AccountID names where to look.
type Problem struct {
	TransferID string
	AccountID  string
	Reason     string
}

// AuditInput is a whole stored ledger: accounts, balance rows, transfer states and the chain of
// transfers in sequence order.
type AuditInput struct {
	Accounts []Account
	Balances map[string]Balance
	States   map[string]TransferState
	Chain    []ChainEntry
}

// Audit checks a stored ledger against its own history, for `corridor ledger verify`: the hash
// chain (naming the first broken transfer), the history's consistency, each balance row and
// transfer state against the ones the history implies, and the trial balance per asset. No
// problems means the stored rows are exactly what the recorded transfers produce.
func Audit(in AuditInput) []Problem {
	var problems []Problem
	if i, ok := VerifyChain(nil, in.Chain); !ok {
		problems = append(problems, Problem{TransferID: in.Chain[i].Transfer.ID,
			Reason: fmt.Sprintf("hash chain broken at sequence index %d", i)})
	}
	history := make([]Transfer, len(in.Chain))
	for i, e := range in.Chain {
		history[i] = e.Transfer
	}
	rebuilt, err := Rebuild(history)
	if err != nil {
		return append(problems, Problem{Reason: "history is inconsistent: " + err.Error()})
	}
	problems = append(problems, compareBalances(in, rebuilt)...)
	problems = append(problems, compareStates(in, rebuilt)...)
	lines, err := TrialBalance(in.Accounts, in.Balances)
	if err != nil {
		return append(problems, Problem{Reason: "trial balance: " + err.Error()})
	}
	for _, l := range lines {
		if !l.Balanced() {
			problems = append(problems, Problem{Reason: fmt.Sprintf("trial balance of %s %s does not sum to zero: %+v", l.Environment, l.Asset, l)})
		}
	}
	return problems
}

func compareBalances(in AuditInput, rebuilt Rebuilt) []Problem {
	var problems []Problem
	known := make(map[string]bool, len(in.Accounts))
	for _, a := range in.Accounts {
		known[a.ID] = true
		if stored, want := in.Balances[a.ID], rebuilt.Balances[a.ID]; stored != want {
			problems = append(problems, Problem{AccountID: a.ID,
				Reason: fmt.Sprintf("balance row %+v, history gives %+v", stored, want)})
		}
	}
	for _, id := range SortedAccountIDs(rebuilt.Balances) {
		if !known[id] {
			problems = append(problems, Problem{AccountID: id, Reason: "postings on an account that does not exist"})
		}
	}
	return problems
}

func compareStates(in AuditInput, rebuilt Rebuilt) []Problem {
	ids := make([]string, 0, len(rebuilt.States))
	for id := range rebuilt.States {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var problems []Problem
	for _, id := range ids {
		if stored, want := in.States[id], rebuilt.States[id]; stored != want {
			problems = append(problems, Problem{TransferID: id,
				Reason: fmt.Sprintf("state %+v, history gives %+v", stored, want)})
		}
	}
	return problems
}
