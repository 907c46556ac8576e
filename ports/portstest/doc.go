// Package portstest holds the contract suites of the ports: exported functions that run one
// behaviour list against any implementation of a port. Each suite runs at least twice: in the
// real adapter's package (Postgres, the simulated chain, the sandbox SMS outbox, the mock payout
// provider) and in ports/fake, against the in-memory fake the application's unit tests use.
// A behaviour a fake models is one its suite checks, so a use-case test that leans on the fake
// leans on what production does.
//
// The repositories of a unit of work (the methods of ports.Tx) each have a suite in a file of
// their own, listed by method name in Repositories and run together by RunRepositories; the
// suites' concurrency cases start units at once where the database serializes them with a lock.
//
// Suites create their own uniquely named accounts, keys and addresses, so one store or chain
// may serve every subtest, and they make no timed assertions.
package portstest
