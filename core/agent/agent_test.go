package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

func TestAgent_StateMachine(t *testing.T) {
	rows := []struct {
		from   Status
		action Action
		to     Status
	}{
		{StatusActive, ActionSuspend, StatusSuspended},
		{StatusSuspended, ActionSuspend, StatusSuspended},
		{StatusSuspended, ActionReactivate, StatusActive},
		{StatusActive, ActionReactivate, StatusActive},
	}
	for _, r := range rows {
		got, err := Next(r.from, r.action)
		if err != nil || got != r.to {
			t.Errorf("%s --%s--> %s, %v; want %s", r.from, r.action, got, err, r.to)
		}
	}
	if _, err := Next("DELETED", ActionSuspend); !errors.Is(err, &core.Error{Code: core.CodeInvalidState}) {
		t.Errorf("unknown state: %v", err)
	}
	if _, err := Next(StatusActive, "archive"); !errors.Is(err, &core.Error{Code: core.CodeInvalidState}) {
		t.Errorf("unknown action: %v", err)
	}
}

func TestAgent_StripScopes(t *testing.T) {
	got := StripScopes([]auth.Scope{auth.ScopePaymentsCreate, auth.ScopeAgentsManage, auth.ScopeKeysManage,
		auth.ScopePoliciesWrite, auth.ScopeTreasuryWrite, auth.ScopePoliciesRead})
	if len(got) != 2 {
		t.Fatalf("StripScopes = %v", got)
	}
	all := StripScopes([]auth.Scope{auth.ScopeRoot})
	for _, s := range all {
		if forbidden(s) || s == auth.ScopeRoot {
			t.Fatalf("* expanded to %s", s)
		}
	}
	if len(all) != len(auth.AllScopes)-1-len(ForbiddenScopes) {
		t.Fatalf("* expanded to %d scopes", len(all))
	}
}

func TestAgent_Windows(t *testing.T) {
	// 2026-11-25 is a Wednesday.
	w := WindowsAt(time.Date(2026, 11, 25, 23, 59, 59, 0, time.FixedZone("x", -5*3600)))
	if !w.Day.Equal(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("day %v", w.Day)
	}
	if !w.Week.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) || !w.Month.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("week %v month %v", w.Week, w.Month)
	}
	// A Sunday belongs to the week that started the Monday before.
	if s := WindowsAt(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)); !s.Week.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("sunday week %v", s.Week)
	}
}

func TestAgent_CheckSpend(t *testing.T) {
	cap := func(v int64) *int64 { return &v }
	l := Limits{PerTransaction: cap(50), Daily: cap(100), Weekly: cap(300), Monthly: cap(1000)}
	cases := []struct {
		spent  Spent
		amount int64
		window string
	}{
		{Spent{}, 50, ""},
		{Spent{}, 51, WindowPerTransaction},
		{Spent{Day: 50, Week: 50, Month: 50}, 50, ""},
		{Spent{Day: 51, Week: 51, Month: 51}, 50, WindowDaily},
		{Spent{Day: 0, Week: 250, Month: 250}, 50, ""},
		{Spent{Day: 0, Week: 251, Month: 251}, 50, WindowWeekly},
		{Spent{Day: 0, Week: 0, Month: 951}, 50, WindowMonthly},
	}
	for _, c := range cases {
		err := CheckSpend(l, c.spent, c.amount)
		var e *core.Error
		switch {
		case c.window == "" && err != nil:
			t.Errorf("%+v %d: %v", c.spent, c.amount, err)
		case c.window != "" && (!errors.As(err, &e) || e.Code != CodeLimit || e.Details["window"] != c.window):
			t.Errorf("%+v %d: %v, want %s", c.spent, c.amount, err, c.window)
		}
	}
	if err := CheckSpend(Limits{}, Spent{Day: 1 << 62}, 1<<62); err != nil {
		t.Fatalf("no caps: %v", err)
	}
}

func TestAgent_LimitsPatch(t *testing.T) {
	v := int64(7)
	l := Limits{Daily: &v, Weekly: &v}
	got := LimitsPatch{Daily: CapPatch{Set: true}, Monthly: CapPatch{Set: true, Value: &v}}.Apply(l)
	if got.Daily != nil || got.Weekly == nil || *got.Monthly != 7 || got.PerTransaction != nil {
		t.Fatalf("Apply = %+v", got)
	}
}

func TestAgent_Cursor(t *testing.T) {
	c := Cursor{At: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC), ID: "pay_1"}
	got, err := ParseCursor(c.Encode())
	if err != nil || !got.At.Equal(c.At) || got.ID != c.ID {
		t.Fatalf("round trip %+v %v", got, err)
	}
	for _, bad := range []string{"", "!!", "bm9waXBl", "MTIzfA"} {
		if _, err := ParseCursor(bad); !errors.Is(err, &core.Error{Code: core.CodeValidationFailed}) {
			t.Errorf("ParseCursor(%q) = %v", bad, err)
		}
	}
}
