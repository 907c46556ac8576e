package api

import (
	"fmt"
	"regexp"
	"sync"
	"testing"
)

func TestTenants_CreateIsIdempotentPerUser(t *testing.T) {
	t.Parallel()
	e := env()
	_, token := e.NewUser(t)
	s := e.Client(t).WithSession(token)
	first := s.Post("/v1/tenants", map[string]any{"name": "Idem Co"}).Expect(t, 201).JSON(t)
	again := s.Post("/v1/tenants", map[string]any{"name": "Other Name"}).Expect(t, 200).JSON(t)
	if again["id"] != first["id"] || again["slug"] != first["slug"] {
		t.Fatalf("second create returned %v, want the existing tenant %v", again, first)
	}
	if first["role"] != "OWNER" {
		t.Fatalf("role = %v, want OWNER", first["role"])
	}
	current := s.Get("/v1/tenants/current").Expect(t, 200).JSON(t)
	if current["id"] != first["id"] {
		t.Fatalf("current tenant %v, want %v", current["id"], first["id"])
	}
}

func TestTenants_ConcurrentCreatesMakeOneTenant(t *testing.T) {
	t.Parallel()
	e := env()
	_, token := e.NewUser(t)
	s := e.Client(t).WithSession(token)
	ids := make(chan string, 10)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.Post("/v1/tenants", map[string]any{"name": "Race Co"})
			if r.Status != 200 && r.Status != 201 {
				t.Errorf("status %d: %s", r.Status, r.Body)
				return
			}
			ids <- r.JSON(t)["id"].(string)
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Fatalf("concurrent creates made %d tenants, want 1", len(seen))
	}
}

func TestTenants_SlugSuffixWhenTaken(t *testing.T) {
	t.Parallel()
	e := env()
	base := fmt.Sprintf("slug-%d", userSeqForSlug())
	var slugs []string
	for i := 0; i < 3; i++ {
		_, token := e.NewUser(t)
		m := e.Client(t).WithSession(token).Post("/v1/tenants", map[string]any{"slug": base}).Expect(t, 201).JSON(t)
		slugs = append(slugs, m["slug"].(string))
	}
	want := []string{base, base + "-2", base + "-3"}
	for i := range want {
		if slugs[i] != want[i] {
			t.Fatalf("slugs %v, want %v", slugs, want)
		}
	}
}

func TestTenants_SlugFromName(t *testing.T) {
	t.Parallel()
	e := env()
	_, token := e.NewUser(t)
	m := e.Client(t).WithSession(token).Post("/v1/tenants", map[string]any{"name": "Ácme Pay, Inc."}).Expect(t, 201).JSON(t)
	if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(m["slug"].(string)) {
		t.Fatalf("derived slug %q is not a valid slug", m["slug"])
	}
}

func TestTenants_Validation(t *testing.T) {
	t.Parallel()
	e := env()
	_, token := e.NewUser(t)
	s := e.Client(t).WithSession(token)
	for _, slug := range []string{"Upper", "under_score", "-lead", "trail-", "a", "double--hyphen"} {
		m := s.Post("/v1/tenants", map[string]any{"slug": slug}).ExpectError(t, 400, "VALIDATION_FAILED")
		if harnessField(m, "slug") == "" {
			t.Fatalf("slug %q: details.fields.slug missing: %v", slug, m)
		}
	}
	s.Get("/v1/tenants/current").ExpectError(t, 403, "TENANT_REQUIRED") // nothing was created
}

func TestTenants_CreateNeedsSession(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	ten.Root.Post("/v1/tenants", map[string]any{"name": "x"}).ExpectError(t, 401, "UNAUTHENTICATED")
	current := ten.Root.Get("/v1/tenants/current").Expect(t, 200).JSON(t)
	if current["id"] != ten.ID {
		t.Fatalf("key sees tenant %v, want %v", current["id"], ten.ID)
	}
}

// TestTenants_PopularSlugNeverRefuses: past the numeric suffixes a random suffix is used, so a
// popular name never blocks a new tenant.
func TestTenants_PopularSlugNeverRefuses(t *testing.T) {
	t.Parallel()
	e := env()
	base := fmt.Sprintf("pop-%d", userSeqForSlug())
	seen := map[string]bool{}
	for i := 0; i < 24; i++ {
		_, token := e.NewUser(t)
		m := e.Client(t).WithSession(token).Post("/v1/tenants", map[string]any{"slug": base}).Expect(t, 201).JSON(t)
		slug := m["slug"].(string)
		if seen[slug] || !regexp.MustCompile(`^`+base+`(-[a-z0-9]+)?$`).MatchString(slug) {
			t.Fatalf("slug %q repeated or malformed", slug)
		}
		seen[slug] = true
	}
}
