package ledger

import "testing"

func TestStore_Smoke(t *testing.T) {
	t.Parallel()
	avail, world := fund(t, newTenantID(), usd(10))
	b := balances(t, avail.ID, world.ID)
	if b[avail.ID].Posted != usd(10) || b[world.ID].Posted != -usd(10) {
		t.Fatalf("balances %+v", b)
	}
}
