package main

import (
	"corridor/adapters/http"
	"corridor/core/policy"
	"corridor/wiring"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// config is read from the environment; every value has a sane sandbox default.
type config struct {
	DatabaseURL     string
	Addr            string
	DataDir         string
	SessionSecret   string
	RateLimitPerSec float64
	RateLimitBurst  int
	BodyLimitBytes  int
	LogLevel        string
	SandboxUSDC     string
	LiveUSDC        string
	ShutdownTimeout time.Duration
	IdempotencyTTL  time.Duration
	DBMaxConns      int
	PostgresPort    int
	// Chain configures the chains per environment (chain.go).
	Chain chainConfig
	// PolicyEnforcement is POLICY_ENFORCEMENT: off, log (default) or enforce.
	PolicyEnforcement policy.Mode
	// Payouts configures the payout providers (payouts.go).
	Payouts wiring.PayoutConfig
	// OperatorToken is OPERATOR_TOKEN (D11): at least 32 characters; unset, /v1/admin/...
	// answers 503.
	OperatorToken string
	// ClaimLifetime is CLAIM_LIFETIME (default 14 days); ClaimLinkBase is CLAIM_LINK_BASE, the
	// link prefix texted to unknown recipients.
	ClaimLifetime time.Duration
	ClaimLinkBase string
}

func loadConfig() (config, error) {
	c := config{
		DatabaseURL:     os.Getenv("DATABASE_URL"),
		Addr:            envOr("CORRIDOR_ADDR", ":"+envOr("PORT", "8080")),
		DataDir:         envOr("CORRIDOR_DATA_DIR", ".data"),
		SessionSecret:   os.Getenv("SESSION_SECRET"),
		LogLevel:        envOr("LOG_LEVEL", "info"),
		SandboxUSDC:     envOr("SANDBOX_USDC_ADDRESS", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
		LiveUSDC:        envOr("LIVE_USDC_ADDRESS", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		ShutdownTimeout: 20 * time.Second,
		IdempotencyTTL:  24 * time.Hour,
	}
	var err error
	errs := []error{}
	c.RateLimitPerSec, err = envFloat("RATE_LIMIT_PER_SECOND", 100)
	errs = append(errs, err)
	c.RateLimitBurst, err = envInt("RATE_LIMIT_BURST", 200)
	errs = append(errs, err)
	c.BodyLimitBytes, err = envInt("BODY_LIMIT_BYTES", 1<<20)
	errs = append(errs, err)
	c.DBMaxConns, err = envInt("DB_MAX_CONNS", 40)
	errs = append(errs, err)
	c.PostgresPort, err = envInt("CORRIDOR_PG_PORT", 0)
	errs = append(errs, err)
	c.Chain, err = loadChainConfig()
	errs = append(errs, err)
	c.PolicyEnforcement, err = policyEnforcement()
	errs = append(errs, err)
	c.Payouts, err = loadPayoutConfig()
	errs = append(errs, err)
	c.ClaimLifetime, err = envDuration("CLAIM_LIFETIME")
	errs = append(errs, err)
	c.ClaimLinkBase = strings.TrimSpace(os.Getenv("CLAIM_LINK_BASE"))
	c.OperatorToken = strings.TrimSpace(os.Getenv("OPERATOR_TOKEN"))
	if c.OperatorToken != "" && len(c.OperatorToken) < 32 {
		errs = append(errs, errors.New("OPERATOR_TOKEN must be at least 32 characters"))
	}
	return c, errors.Join(errs...)
}

// sessionSecret returns SESSION_SECRET, or for local use a random secret kept in the data dir,
// so `corridor session` and `corridor run` on one machine agree without any setup.
func (c config) sessionSecret() (string, error) {
	if c.SessionSecret != "" {
		return c.SessionSecret, nil
	}
	path := filepath.Join(c.DataDir, "session.secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", c.DataDir, err)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	secret := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return secret, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a non-negative integer, got %q", name, v)
	}
	return n, nil
}

func envFloat(name string, def float64) (float64, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%s must be a non-negative number, got %q", name, v)
	}
	return f, nil
}

// rateLimit turns the configuration into the HTTP adapter's limit; 0 per second disables it.
func rateLimit(c config) http.RateLimit {
	return http.RateLimit{PerSecond: c.RateLimitPerSec, Burst: c.RateLimitBurst}
}

// cipherKey returns CIPHER_KEY (hex, at least 32 bytes), or for local use a random key kept
// in the data dir, so phone numbers and payout identifiers stay readable across restarts.
func (c config) cipherKey() (string, error) {
	if v := os.Getenv("CIPHER_KEY"); v != "" {
		if b, err := hex.DecodeString(v); err != nil || len(b) < 32 {
			return "", errors.New("CIPHER_KEY must be at least 32 bytes, hex-encoded")
		}
		return v, nil
	}
	path := filepath.Join(c.DataDir, "cipher.key")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 64 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", c.DataDir, err)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	key := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return key, nil
}

// policyEnforcement reads POLICY_ENFORCEMENT (off, log or enforce; default log).
func policyEnforcement() (policy.Mode, error) {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("POLICY_ENFORCEMENT")))
	mode, ok := policy.ParseMode(v)
	if !ok {
		return "", fmt.Errorf("POLICY_ENFORCEMENT must be off, log or enforce, got %q", v)
	}
	return mode, nil
}
