package operations

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// TestLookups_Audited: every operator lookup is written to the audit trail with who looked and
// what was asked; a bad tenant query is refused, audited as refused, and reads nothing.
func TestLookups_Audited(t *testing.T) {
	reports, audit := &fakeReports{}, &fakeAudit{}
	s := newService(t, Deps{Reports: reports, Audit: audit})
	by := Actor{Operator: "operator-token:abc", Via: "api"}
	ctx := context.Background()
	tenants, err := s.FindTenants(ctx, by, "  ops@example.com ")
	if err != nil || len(tenants) != 1 || tenants[0].MatchedBy != "ops@example.com" {
		t.Fatalf("find tenants: %+v %v", tenants, err)
	}
	if _, err := s.FindTenants(ctx, by, strings.Repeat("x", MaxTenantQuery+1)); !core.HasCode(err, core.CodeValidationFailed) {
		t.Fatalf("long query: %v", err)
	}
	if _, err := s.ListStuckWork(ctx, by); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListFailedJobs(ctx, by); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListDisabledEndpoints(ctx, by); err != nil {
		t.Fatal(err)
	}
	want := []string{ActionListTenants + " done", ActionListTenants + " refused", ActionListStuckWork + " done", ActionListFailedJobs + " done", ActionListDisabledEndpoints + " done"}
	if len(audit.entries) != len(want) {
		t.Fatalf("audit %+v", audit.entries)
	}
	for i, e := range audit.entries {
		if e.Action+" "+e.Outcome != want[i] || e.Operator != by.Operator || e.Via != "api" || e.At.IsZero() {
			t.Fatalf("entry %d: %+v, want %s", i, e, want[i])
		}
	}
	if audit.entries[0].Detail != "q=ops@example.com" {
		t.Fatalf("detail %q", audit.entries[0].Detail)
	}
	if len(reports.limits) != 5 { // tenants, payments, relayer, jobs, endpoints: the refused query read nothing
		t.Fatalf("reads %v", reports.limits)
	}
}
