// Package spendguard is the one spend guard: money leaves a tenant's control only through a
// debit of a tenant-owned ledger account or a custody signature, and both pass here. Guard
// decides a spend put to it by a use case at acceptance (agent confinement, agent caps
// reserved against the agent's windows); Ledger wraps the store so every debit posted on a
// caller's behalf is confined too, whichever route posted it, so a new route cannot forget it.
// Route handlers keep their early refusals for clear errors; this package is the backstop.
package spendguard
