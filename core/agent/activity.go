package agent

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Activity kinds of the timeline. Card authorizations join as a third source once cards exist.
const (
	KindPayment        = "payment"
	KindPolicyDecision = "policy_decision"
)

// ActivityItem is one entry of an agent's timeline: a Safe payment from its wallet, an
// authorization on its card, or a policy decision about it (pinned to the policy version's
// sha256).
type ActivityItem struct {
	Kind            string
	ID              string
	At              time.Time
	AmountBaseUnits int64
	// Status is the payment's or authorization's status; for a decision ALLOW or DENY.
	Status string
	// Reason is a payment's failureReason, an authorization's decline reason or a decision's
	// reason; "" when none.
	Reason      string
	SHA256      string // decisions only
	PolicyID    string // decisions, and authorizations a policy decided
	ReferenceID string // decisions: the payment or off-ramp payment decided on; authorizations: the card
}

// Cursor is a position in a timeline ordered newest first: the next page holds the items
// strictly before (At, ID). Ids of different sources have different prefixes, so (At, ID) is a
// total order and ties at one instant are broken the same way on every page.
type Cursor struct {
	At time.Time
	ID string
}

// MaxActivityLimit bounds one page of the timeline.
const MaxActivityLimit = 100

// Encode is the opaque form of a cursor.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.At.UnixMicro(), 10) + "|" + c.ID))
}

// ParseCursor reads an opaque cursor; anything else is VALIDATION_FAILED naming cursor.
func ParseCursor(s string) (Cursor, error) {
	bad := core.Invalid("cursor", "is not a cursor this service returned")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) > 200 {
		return Cursor{}, bad
	}
	micros, id, ok := strings.Cut(string(raw), "|")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || id == "" {
		return Cursor{}, bad
	}
	return Cursor{At: time.UnixMicro(n).UTC(), ID: id}, nil
}

// CardSpend is the budget one card authorization consumed: the windows it was counted in
// are kept, so a reversal credits those windows and not the ones current when it arrives.
type CardSpend struct {
	AuthorizationID string
	AgentID         string
	TenantID        string
	Environment     core.Environment
	AmountBaseUnits int64
	Windows         Windows
	ConsumedAt      time.Time
	ReleasedAt      *time.Time
}
