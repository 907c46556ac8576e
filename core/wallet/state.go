package wallet

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Status of a wallet's deployment (docs/api.md Wallet).
type Status string

const (
	StatusPendingDeployment Status = "PENDING_DEPLOYMENT"
	StatusDeploying         Status = "DEPLOYING"
	StatusDeployed          Status = "DEPLOYED"
	StatusFailed            Status = "FAILED"
)

// Trigger is an event of the deployment job.
type Trigger string

const (
	// TriggerSubmitted: the factory transaction was sent (or found already mined).
	TriggerSubmitted Trigger = "submitted"
	// TriggerResubmitted: an earlier attempt was dropped or reverted and was sent again.
	TriggerResubmitted Trigger = "resubmitted"
	// TriggerConfirmed: code is at the predicted address.
	TriggerConfirmed Trigger = "confirmed"
	// TriggerGaveUp: retries are exhausted.
	TriggerGaveUp Trigger = "gave_up"
)

// MaxDeployAttempts bounds deployment submissions before FAILED.
const MaxDeployAttempts = 5

type transition struct {
	from    Status
	trigger Trigger
}

// transitions is the state machine as data: (from, trigger) → to. docs/api.md leaves open the
// state FAILED is entered from; here it is either pending state once retries are exhausted.
var transitions = map[transition]Status{
	{StatusPendingDeployment, TriggerSubmitted}: StatusDeploying,
	{StatusPendingDeployment, TriggerConfirmed}: StatusDeployed, // already deployed (a retried job)
	{StatusPendingDeployment, TriggerGaveUp}:    StatusFailed,
	{StatusDeploying, TriggerResubmitted}:       StatusDeploying,
	{StatusDeploying, TriggerConfirmed}:         StatusDeployed,
	{StatusDeploying, TriggerGaveUp}:            StatusFailed,
}

// Apply moves the wallet by trigger or refuses with INVALID_STATE. txHash is the submitted
// transaction (submitted/resubmitted); reason explains a failure (gave_up).
func (w Wallet) Apply(trigger Trigger, now time.Time, txHash, reason string) (Wallet, error) {
	to, ok := transitions[transition{w.Status, trigger}]
	if !ok {
		return w, core.E(core.CodeInvalidState, "wallet %s cannot go from %s on %s", w.ID, w.Status, trigger)
	}
	w.Status = to
	switch trigger {
	case TriggerSubmitted, TriggerResubmitted:
		w.DeployAttempts++
		w.DeployTxHash = txHash
	case TriggerConfirmed:
		w.DeployedAt = &now
		if txHash != "" {
			w.DeployTxHash = txHash
		}
	case TriggerGaveUp:
		w.FailureReason = reason
	}
	return w, nil
}

// Terminal reports whether the deployment is over.
func (s Status) Terminal() bool { return s == StatusDeployed || s == StatusFailed }
