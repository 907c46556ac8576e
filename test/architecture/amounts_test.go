package architecture

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// amountParsers are the ways Go code could read a number from a client's string. API amounts
// have one parser, core.ParseAmount, so that every amount field refuses the same inputs
// (exponents, signs, spaces, excess fraction digits); a second parser would quietly accept them.
var amountParsers = []string{
	"decimal.NewFromString", "decimal.RequireFromString", "decimal.NewFromFloat",
	"strconv.ParseFloat", "big.ParseFloat", ".SetString(", "fmt.Sscan",
}

// amountParserAllowed lists the files that may use one, each for a reason other than API amounts.
var amountParserAllowed = map[string]string{
	"core/recipient/destination.go": "bank account checksums (IBAN mod 97), not amounts",
	"core/invoice/bill.go":          "uint256 signature nonces of bills, not amounts",
}

func TestOneAmountParser(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, dir := range []string{"core", "ledger", "app", "adapters/http", "wiring"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if _, ok := amountParserAllowed[filepath.ToSlash(rel)]; ok {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for _, parser := range amountParsers {
				if strings.Contains(string(src), parser) {
					t.Errorf("%s uses %s: parse API amounts with core.ParseAmount / core.ParseUSD", rel, parser)
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the test looking at the right tree?", checked)
	}
}
