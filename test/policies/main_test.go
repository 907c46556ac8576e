// Package policies holds black-box tests of spend policies over HTTP: documents and their
// validation, versions, attachments, the evaluate dry run with its decision logs, and
// enforcement on Safe payment propose (on the simulated chain) in each POLICY_ENFORCEMENT mode.
package policies

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared
