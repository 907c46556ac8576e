// Package event is the partner-facing event (docs/decisions/webhooks.md): a record, written in the same
// transaction as the state change it announces, that a partner lists through GET /v1/events
// and receives on its webhook endpoints.
package event

import (
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// CodeEventNotFound is the 404 of an event that is not the caller's.
const CodeEventNotFound core.Code = "EVENT_NOT_FOUND"

// ErrNotFound is the 404 of an event that is not the caller's.
var ErrNotFound = core.NotFound(CodeEventNotFound, "event")

// Bounds of an event.
const (
	maxTypeLength = 64
	// MaxDataKeys bounds the data object an event carries.
	MaxDataKeys = 32
)

// Event is one state change a partner cares about. Type names the state reached
// ("safe_payment.completed"); ResourceID is the object that changed. An event whose type
// equals the resource's latest event's is not recorded, so an update that leaves the status as
// it was (a signature added, a retried job) emits nothing.
type Event struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Type        string
	ResourceID  string
	Data        map[string]any
	CreatedAt   time.Time
	// Repeatable marks an event that announces a change other than a status (a card's limits
	// updated): it is recorded even when the resource's latest event has its type. Not stored.
	Repeatable bool
}

// New builds an event with a fresh id; data always carries the resource's id.
func New(tenantID string, env core.Environment, typ, resourceID string, data map[string]any, at time.Time) Event {
	d := make(map[string]any, len(data)+1)
	for k, v := range data {
		d[k] = v
	}
	d["id"] = resourceID
	return Event{ID: core.NewID(core.PrefixEvent), TenantID: tenantID, Environment: env, Type: typ,
		ResourceID: resourceID, Data: d, CreatedAt: at.UTC()}
}

// TypeFor is the event type of a resource kind reaching a status: "safe_payment" and
// "AWAITING_SIGNATURE" give "safe_payment.awaiting_signature".
func TypeFor(kind, status string) string { return kind + "." + strings.ToLower(status) }

// Validate checks an event before it is stored and after it is read back.
func (e Event) Validate() error {
	switch {
	case !core.HasPrefix(e.ID, core.PrefixEvent):
		return fmt.Errorf("event: id %q", e.ID)
	case e.TenantID == "" || e.ResourceID == "":
		return fmt.Errorf("event %s: tenant and resource are required", e.ID)
	case !e.Environment.Valid():
		return fmt.Errorf("event %s: environment %q", e.ID, e.Environment)
	case !ValidType(e.Type):
		return fmt.Errorf("event %s: type %q", e.ID, e.Type)
	case len(e.Data) > MaxDataKeys:
		return fmt.Errorf("event %s: %d data keys (at most %d)", e.ID, len(e.Data), MaxDataKeys)
	case e.CreatedAt.IsZero():
		return fmt.Errorf("event %s: createdAt is required", e.ID)
	}
	return nil
}

// ValidType reports whether s is a dotted lower-case event type ("card_authorization.captured").
func ValidType(s string) bool {
	if s == "" || len(s) > maxTypeLength || !strings.Contains(s, ".") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
