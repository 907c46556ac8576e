package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

var (
	keySecret      = regexp.MustCompile(`csk_test_[A-Za-z0-9]+_[A-Za-z0-9]+`)
	endpointSecret = regexp.MustCompile(`whsec_[A-Za-z0-9_\-]+`)
)

// signedWith checks a delivery's Corridor-Signature with secret, by the recipe of
// docs/webhooks.md: HMAC-SHA256 of "<t>.<raw body>".
func signedWith(secret, header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	return ts != "" && hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(sig))
}

func endpointTotal(t *testing.T, ten *harness.Tenant) float64 {
	t.Helper()
	return ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"].(float64)
}

func TestConsole_CreateKeyFormRunsOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	before := keyTotal(t, ten)

	v.Get("/console/keys")
	form := v.Form("/console/keys", url.Values{"name": {"double click"}, "scopes": {"wallets:read"}})
	first := v.Post("/console/keys", form, false)
	if first.Status != http.StatusSeeOther || first.Header.Get("Location") != "/console/keys" {
		t.Fatalf("first submission: %d %q", first.Status, first.Header.Get("Location"))
	}
	shown := keySecret.FindString(v.Get("/console/keys").Body)
	if shown == "" {
		t.Fatal("the first submission's secret is not shown")
	}

	// The same rendered form again: no second key, the same page, no secret.
	again := v.Post("/console/keys", form, false)
	if again.Status != http.StatusSeeOther || again.Header.Get("Location") != "/console/keys" || keySecret.MatchString(again.Body) {
		t.Fatalf("second submission: %d %q", again.Status, again.Header.Get("Location"))
	}
	page := v.Get("/console/keys")
	if keySecret.MatchString(page.Body) || strings.Contains(page.Body, `id="key-secret"`) ||
		!strings.Contains(page.Body, "already submitted") || !strings.Contains(page.Body, "double click") {
		t.Fatalf("the resubmission's page shows a secret or does not say it was done:\n%s", page.Body)
	}
	if after := keyTotal(t, ten); after != before+1 {
		t.Fatalf("keys %v → %v after submitting one form twice, want exactly one more", before, after)
	}
	env().Client(t).WithKey(shown).Get("/v1/wallets").Expect(t, 200) // the one key is the one shown

	// The same token with other values is another request: refused, nothing created.
	other := v.Form("/console/keys", url.Values{"name": {"edited"}}) // the last page's fresh token…
	form.Set("name", "edited")                                       // …but here the first form's, reused
	if p := v.Post("/console/keys", form, false); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "already submitted with other values") {
		t.Fatalf("the same token with other values: %d\n%s", p.Status, p.Body)
	}
	if after := keyTotal(t, ten); after != before+1 {
		t.Fatalf("a reused token with other values created a key: %v → %v", before, after)
	}

	// A fresh render is a new form: a deliberate second create works.
	if p := v.Post("/console/keys", other, false); p.Status != http.StatusSeeOther {
		t.Fatalf("a fresh form: %d\n%s", p.Status, p.Body)
	}
	if !keySecret.MatchString(v.Get("/console/keys").Body) {
		t.Fatal("the fresh form's key secret is not shown")
	}
	if after := keyTotal(t, ten); after != before+2 {
		t.Fatalf("keys %v → %v after a fresh form, want two more", before, after)
	}

	// A token is tied to its session: another session of the same member cannot use it.
	second := env().ConsoleVisitor(t)
	second.SignIn(ten.SessionToken)
	stolen := url.Values{"name": {"stolen"}, "_csrf": {second.CSRF}, "_once": {other.Get("_once")}}
	if p := second.Post("/console/keys", stolen, false); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "one-time token") {
		t.Fatalf("another session's token: %d", p.Status)
	}
	if p := v.Post("/console/keys", url.Values{"name": {"no token"}, "_csrf": {v.CSRF}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("a form without its one-time token: %d", p.Status)
	}
	if after := keyTotal(t, ten); after != before+2 {
		t.Fatalf("refused forms created keys: %v → %v", before, after)
	}
}

func TestConsole_ParallelSubmissionsCreateOneKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	before := keyTotal(t, ten)
	v.Get("/console/keys")
	form := v.Form("/console/keys", url.Values{"name": {"parallel"}, "scopes": {"wallets:read"}})

	// The same browser session (the same cookie) sends the form several times at once.
	const n = 4
	tabs := make([]*harness.ConsoleVisitor, n)
	for i := range tabs {
		tabs[i] = env().ConsoleVisitor(t)
		for _, ck := range v.Cookies() {
			tabs[i].SetCookies([]*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/console"}})
		}
	}
	pages := make([]*harness.ConsolePage, n)
	var wg sync.WaitGroup
	for i := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pages[i] = tabs[i].Post("/console/keys", form, false)
		}()
	}
	wg.Wait()
	secrets := 0
	for i, p := range pages {
		if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/keys" {
			t.Fatalf("submission %d: %d %q\n%s", i, p.Status, p.Header.Get("Location"), p.Body)
		}
		if keySecret.MatchString(tabs[i].Get("/console/keys").Body) {
			secrets++
		}
	}
	if after := keyTotal(t, ten); after != before+1 {
		t.Fatalf("keys %v → %v after %d parallel submissions of one form, want exactly one more", before, after, n)
	}
	if secrets != 1 {
		t.Fatalf("the secret was shown %d times, want once", secrets)
	}
}

func TestConsole_AddEndpointFormRunsOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	before := endpointTotal(t, ten)

	v.Get("/console/webhooks")
	form := v.Form("/console/webhooks", url.Values{"url": {"http://127.0.0.1:9/twice"}, "events": {"*"}})
	if p := v.Post("/console/webhooks", form, false); p.Status != http.StatusSeeOther {
		t.Fatalf("first submission: %d\n%s", p.Status, p.Body)
	}
	if !endpointSecret.MatchString(v.Get("/console/webhooks").Body) {
		t.Fatal("the first submission's signing secret is not shown")
	}
	if p := v.Post("/console/webhooks", form, false); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/webhooks" {
		t.Fatalf("second submission: %d %q", p.Status, p.Header.Get("Location"))
	}
	page := v.Get("/console/webhooks")
	if endpointSecret.MatchString(page.Body) || !strings.Contains(page.Body, "already submitted") {
		t.Fatalf("the resubmission's page shows a secret or does not say it was done:\n%s", page.Body)
	}
	if after := endpointTotal(t, ten); after != before+1 {
		t.Fatalf("endpoints %v → %v after submitting one form twice, want exactly one more", before, after)
	}
}

func TestConsole_RotateAndRedeliverFormsRunOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	ep := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL(), "events": []string{"agent.suspended"}}).Expect(t, 201).JSON(t)
	id := ep["id"].(string)
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "idempotent console"}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Post("/v1/agents/"+agent+"/suspend", nil).Expect(t, 200)
	rcv.Wait(t, 1)
	var deliveryID string
	deadline := time.Now().Add(30 * time.Second)
	for deliveryID == "" {
		ds := ten.Root.Get("/v1/webhook-endpoints/"+id+"/deliveries").Expect(t, 200).JSON(t)["deliveries"].([]any)
		if len(ds) == 1 {
			deliveryID = ds[0].(map[string]any)["id"].(string)
		} else if time.Now().After(deadline) {
			t.Fatalf("no delivery: %v", ds)
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	page := "/console/webhooks/" + id

	// Rotate: the form sent twice rotates once; the secret the first answer showed stays the
	// endpoint's secret.
	v.Get(page)
	rotate := v.Form(page+"/rotate", nil)
	if p := v.Post(page+"/rotate", rotate, false); p.Status != http.StatusSeeOther || p.Header.Get("Location") != page {
		t.Fatalf("rotate: %d %q", p.Status, p.Header.Get("Location"))
	}
	shown := endpointSecret.FindString(v.Get(page).Body)
	if shown == "" {
		t.Fatal("the rotated secret is not shown")
	}
	if p := v.Post(page+"/rotate", rotate, false); p.Status != http.StatusSeeOther || p.Header.Get("Location") != page {
		t.Fatalf("rotate again: %d %q", p.Status, p.Header.Get("Location"))
	}
	after := v.Get(page)
	if endpointSecret.MatchString(after.Body) || !strings.Contains(after.Body, "already submitted") {
		t.Fatalf("the resubmitted rotation shows a secret or does not say it was done:\n%s", after.Body)
	}

	// Redeliver: the form sent twice adds one delivery, not two, signed with the shown secret.
	redeliver := v.Form(page+"/deliveries/"+deliveryID+"/redeliver", nil)
	for i := range 2 {
		if p := v.Post(page+"/deliveries/"+deliveryID+"/redeliver", redeliver, false); p.Status != http.StatusSeeOther || p.Header.Get("Location") != page {
			t.Fatalf("redeliver %d: %d %q\n%s", i, p.Status, p.Header.Get("Location"), p.Body)
		}
	}
	if p := v.Get(page); !strings.Contains(p.Body, "already submitted") {
		t.Fatalf("the resubmitted redelivery does not say it was done:\n%s", p.Body)
	}
	ds := ten.Root.Get("/v1/webhook-endpoints/"+id+"/deliveries").Expect(t, 200).JSON(t)
	if ds["total"].(float64) != 2 {
		t.Fatalf("deliveries after one redelivery form sent twice: %v, want 2", ds["total"])
	}
	rcv.Wait(t, 2)
	time.Sleep(time.Second) // a second redelivery would have arrived by now
	got := rcv.Wait(t, 2)
	if len(got) != 2 {
		t.Fatalf("the receiver got %d deliveries, want 2", len(got))
	}
	if !signedWith(shown, got[1].Signature, got[1].Body) {
		t.Fatal("the redelivery is not signed with the secret the first rotation showed: it was rotated again")
	}
}
