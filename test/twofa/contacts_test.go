package twofa

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestContacts_CreateListDelete(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	addr := freshAddress(t)
	created := ten.Root.Post("/v1/contacts", map[string]any{"address": strings.ToLower(addr), "label": "Supplier"}).Expect(t, http.StatusCreated).JSON(t)
	if created["address"] != addr || created["label"] != "Supplier" || created["chainId"] != float64(84532) {
		t.Fatalf("contact: %v", created)
	}
	createdAt, _ := time.Parse(time.RFC3339Nano, created["createdAt"].(string))
	availableAt, _ := time.Parse(time.RFC3339Nano, created["availableAt"].(string))
	if availableAt.Sub(createdAt) != 24*time.Hour {
		t.Fatalf("cooling-off window %s, want the 24h default", availableAt.Sub(createdAt))
	}
	// The same address again (any case) is a conflict and changes nothing.
	ten.Root.Post("/v1/contacts", map[string]any{"address": addr, "label": "Again"}).ExpectError(t, http.StatusConflict, "CONTACT_EXISTS")
	list := ten.Root.Get("/v1/contacts").Expect(t, http.StatusOK).JSON(t)
	if list["total"] != float64(1) || len(list["contacts"].([]any)) != 1 {
		t.Fatalf("list: %v", list)
	}
	// Bad input names its field and saves nothing.
	e := ten.Root.Post("/v1/contacts", map[string]any{"address": "0x1234", "label": ""}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if harness.Field(e, "address") == "" || harness.Field(e, "label") == "" {
		t.Fatalf("fields: %v", e)
	}
	ten.Root.Post("/v1/contacts", map[string]any{"address": freshAddress(t), "label": "x", "chainId": -1}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	// Another tenant neither sees nor deletes it.
	other := env().NewTenant(t)
	if got := other.Root.Get("/v1/contacts").Expect(t, http.StatusOK).JSON(t); got["total"] != float64(0) {
		t.Fatalf("other tenant lists %v", got)
	}
	other.Root.Do(http.MethodDelete, "/v1/contacts/"+created["id"].(string), nil).ExpectError(t, http.StatusNotFound, "CONTACT_NOT_FOUND")
	gone := ten.Root.Do(http.MethodDelete, "/v1/contacts/"+created["id"].(string), nil).Expect(t, http.StatusOK).JSON(t)
	if gone["id"] != created["id"] {
		t.Fatalf("deleted: %v", gone)
	}
	ten.Root.Do(http.MethodDelete, "/v1/contacts/"+created["id"].(string), nil).ExpectError(t, http.StatusNotFound, "CONTACT_NOT_FOUND")
	if got := ten.Root.Get("/v1/contacts").Expect(t, http.StatusOK).JSON(t); got["total"] != float64(0) {
		t.Fatalf("after delete: %v", got)
	}
	// Scopes: a key without contacts:write cannot save one.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader", "scopes": []string{"contacts:read"}}))
	reader.Post("/v1/contacts", map[string]any{"address": freshAddress(t), "label": "x"}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	reader.Get("/v1/contacts").Expect(t, http.StatusOK)
}

func TestContacts_RequireSavedPayees(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	to := freshAddress(t)
	// Off by default: an unsaved payee is paid.
	ten.Root.Post("/v1/payments", payTo(w, to, "1")).Expect(t, http.StatusCreated)
	got := putSettings(t, ten.Root, map[string]any{"requireSavedPayees": true})
	if got["requireSavedPayees"] != true || got["approvalAboveUsd"] != nil || got["coolingOffSeconds"] != float64(86400) {
		t.Fatalf("settings: %v", got)
	}
	e := ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "1")).ExpectError(t, http.StatusForbidden, "NEW_PAYEE_NOT_SAVED")
	if details(t, e)["destinationAddress"] == nil {
		t.Fatalf("details: %v", e)
	}
	// A payment to another wallet of the tenant pays no payee.
	w2 := newWallet(t, ten)
	ten.Root.Post("/v1/payments", map[string]any{"sourceWalletId": w, "destination": map[string]any{"type": "wallet", "walletId": w2},
		"amount": map[string]any{"value": "1"}}).Expect(t, http.StatusCreated)
	// Nothing was recorded for the refused payment.
	if list := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t); list["total"] != float64(2) {
		t.Fatalf("payments: %v", list["total"])
	}
}

// TestContacts_CoolingOff moves the app clock of its own server: a contact is refused
// PAYEE_COOLING_OFF until its window ends, then paid.
func TestContacts_CoolingOff(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	clock := &testClock{}
	srv := harness.NewServer(t, func(c *wiring.Config) { c.Clock = clock })
	c := srv.Client(t).WithKey(ten.RootKey)
	to := freshAddress(t)
	contact := c.Post("/v1/contacts", map[string]any{"address": to, "label": "New supplier"}).Expect(t, http.StatusCreated).JSON(t)
	e := c.Post("/v1/payments", payTo(w, to, "1")).ExpectError(t, http.StatusForbidden, "PAYEE_COOLING_OFF")
	d := details(t, e)
	if d["availableAt"] != contact["availableAt"] && !sameInstant(d["availableAt"], contact["availableAt"]) {
		t.Fatalf("availableAt %v, contact %v", d["availableAt"], contact["availableAt"])
	}
	if s, _ := d["secondsRemaining"].(float64); s < 86390 || s > 86400 {
		t.Fatalf("secondsRemaining %v", d["secondsRemaining"])
	}
	clock.Advance(23 * time.Hour)
	e = c.Post("/v1/payments", payTo(w, to, "1")).ExpectError(t, http.StatusForbidden, "PAYEE_COOLING_OFF")
	if s, _ := details(t, e)["secondsRemaining"].(float64); s < 3590 || s > 3600 {
		t.Fatalf("secondsRemaining after 23h: %v", s)
	}
	clock.Advance(time.Hour)
	p := c.Post("/v1/payments", payTo(w, to, "1")).Expect(t, http.StatusCreated).JSON(t)
	if p["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("payment: %v", p)
	}
}

func sameInstant(a, b any) bool {
	as, _ := a.(string)
	bs, _ := b.(string)
	at, err1 := time.Parse(time.RFC3339Nano, as)
	bt, err2 := time.Parse(time.RFC3339Nano, bs)
	return err1 == nil && err2 == nil && at.Truncate(time.Second).Equal(bt.Truncate(time.Second))
}
