package core

import "strings"

// Environment separates sandbox (TEST) from production (LIVE) data inside one deployment
// (docs/decisions/tenancy.md). Every stored resource records one; a key only sees its own.
type Environment string

const (
	EnvTest Environment = "TEST"
	EnvLive Environment = "LIVE"
)

// ParseEnvironment accepts "test"/"live" in any case.
func ParseEnvironment(s string) (Environment, bool) {
	switch strings.ToUpper(s) {
	case string(EnvTest):
		return EnvTest, true
	case string(EnvLive):
		return EnvLive, true
	}
	return "", false
}

// Valid reports whether e is one of the two environments.
func (e Environment) Valid() bool { return e == EnvTest || e == EnvLive }

// KeyLabel is the lower-case form used inside API key strings (csk_test_…).
func (e Environment) KeyLabel() string { return strings.ToLower(string(e)) }
