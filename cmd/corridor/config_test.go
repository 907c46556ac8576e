package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/wiring"
)

var updateDocs = flag.Bool("update", false, "rewrite the configuration table of docs/operations.md")

const (
	hex32 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	key32 = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
)

// TestConfig_Defaults: with nothing set, every knob is today's default, the same figure the
// packages below fall back to when handed zero.
func TestConfig_Defaults(t *testing.T) {
	c, err := loadConfig(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	w := c.wiringConfig()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"listen address", c.listenAddr(), ":8080"},
		{"data dir", c.Service.DataDir, ".data"},
		{"log level", c.Service.LogLevel, logLevel("info")},
		{"shutdown http grace", c.Service.ShutdownHTTPGrace, 20 * time.Second},
		{"shutdown workers grace", c.Service.ShutdownWorkersGrace, 30 * time.Second},
		{"db pool", w.DBMaxConns, 40},
		{"body limit", w.BodyLimitBytes, 1 << 20},
		{"rate limit", w.RateLimit, http.RateLimit{PerSecond: 100, Burst: 200}},
		{"idempotency ttl", w.IdempotencyTTL, 24 * time.Hour},
		{"http timeouts", w.HTTPTimeouts, http.DefaultTimeouts},
		{"policy", w.PolicyEnforcement, policy.ModeLog},
		{"operator token", w.OperatorToken, ""},
		{"wallet quota", w.MaxWalletsPerTenant, wallet.MaxWalletsPerTenant},
		{"faucet", w.Faucet, wallet.DefaultFaucetLimits},
		{"claim lifetime", w.ClaimLifetime, claim.DefaultLifetime},
		{"claim link base", w.ClaimLinkBase, "https://claim.corridor.test/c/"},
		{"claim link throttle", w.ClaimLinkRateLimit, http.RateLimit{PerSecond: float64(claim.PublicViewPerIPLimit) / 60, Burst: claim.PublicViewPerIPLimit}},
		{"codes per phone", w.ClaimCodesPerPhone, claim.MaxCodesPerPhone},
		{"codes per IP", w.ClaimCodesPerIP, claim.MaxCodesPerIP},
		{"resends per claim", w.ClaimResendsPerClaim, claim.MaxResends},
		{"payout modes", w.Payouts.Modes, map[string]ports.ProviderMode{}},
		{"quote lifetime", w.Payouts.QuoteLifetime, 120 * time.Second},
		{"poll interval", w.Payouts.PollInterval, 5 * time.Second},
		{"usdc", w.Chains, wiring.ChainAddresses{SandboxUSDC: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", LiveUSDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"}},
		{"dev chain", c.Chain.DevChain, onOff(true)},
		{"geth", c.Chain.GethBinary, "bin/geth"},
		{"chain dial timeout", c.Chain.DialTimeout, 30 * time.Second},
		{"chain rpc timeout", c.Chain.RPCTimeout, chain.DefaultRPCTimeout},
		{"chain confirmations", w.ChainConfirmations, map[core.Environment]uint64{core.EnvTest: 0, core.EnvLive: 10}},
		{"db statement timeout", w.DBStatementTimeout, postgres.DefaultStatementTimeout},
		{"db idle in transaction timeout", w.DBIdleInTxTimeout, postgres.DefaultIdleInTransactionTimeout},
		{"trusted proxies", w.TrustedProxies, []netip.Prefix(nil)},
		{"cipher rotation", []string{w.CipherPreviousKeys, w.CipherLookupKey}, []string{"", ""}},
		{"identity provider", c.Identity.Provider, providerSandbox},
		{"oidc max token lifetime", c.Identity.MaxTokenLifetime, 24 * time.Hour},
		{"oidc key set timeout", c.Identity.JWKSTimeout, identity.DefaultJWKSTimeout},
		{"serves live", c.servesLive(), false},
		{"local", c.Local, false},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
}

// TestConfig_Overrides: every kind of variable reaches the field it names.
func TestConfig_Overrides(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		got  func(Config) any
		want any
	}{
		{"address", map[string]string{"CORRIDOR_ADDR": "127.0.0.1:9"}, func(c Config) any { return c.listenAddr() }, "127.0.0.1:9"},
		{"port", map[string]string{"PORT": "9090"}, func(c Config) any { return c.listenAddr() }, ":9090"},
		{"empty is the default", map[string]string{"DB_MAX_CONNS": ""}, func(c Config) any { return c.Service.DBMaxConns }, 40},
		{"db pool", map[string]string{"DB_MAX_CONNS": "7"}, func(c Config) any { return c.wiringConfig().DBMaxConns }, 7},
		{"rate limit off", map[string]string{"RATE_LIMIT_PER_SECOND": "0"}, func(c Config) any { return c.wiringConfig().RateLimit.PerSecond }, 0.0},
		{"read replica", map[string]string{"DATABASE_READ_URL": "postgres://standby/corridor", "DATABASE_READ_MAX_LAG": "2s"},
			func(c Config) any { w := c.wiringConfig(); return w.DatabaseReadURL + " " + w.ReadMaxLag.String() }, "postgres://standby/corridor 2s"},
		{"rate limits shared", map[string]string{"RATE_LIMIT_STORE": "Postgres"}, func(c Config) any { return c.wiringConfig().SharedRateLimits }, true},
		{"rate limits in the process", map[string]string{}, func(c Config) any { return c.wiringConfig().SharedRateLimits }, false},
		{"fractional rate", map[string]string{"RATE_LIMIT_PER_SECOND": "2.5"}, func(c Config) any { return c.wiringConfig().RateLimit.PerSecond }, 2.5},
		{"key cache default", map[string]string{}, func(c Config) any { return c.wiringConfig().APIKeyCacheTTL }, time.Second},
		{"key cache off", map[string]string{"API_KEY_CACHE": "off"}, func(c Config) any { return c.wiringConfig().APIKeyCacheTTL < 0 }, true},
		{"key cache ttl", map[string]string{"API_KEY_CACHE_TTL": "250ms"}, func(c Config) any { return c.wiringConfig().APIKeyCacheTTL }, 250 * time.Millisecond},
		{"log level", map[string]string{"LOG_LEVEL": "DEBUG"}, func(c Config) any { return c.Service.LogLevel.level().String() }, "DEBUG"},
		{"http timeouts", map[string]string{"HTTP_READ_TIMEOUT": "1s", "HTTP_WRITE_TIMEOUT": "2s", "HTTP_IDLE_TIMEOUT": "3m"},
			func(c Config) any { return c.wiringConfig().HTTPTimeouts }, http.Timeouts{Read: time.Second, Write: 2 * time.Second, Idle: 3 * time.Minute, Request: 25 * time.Second}},
		{"shutdown grace", map[string]string{"SHUTDOWN_HTTP_GRACE": "1m"}, func(c Config) any { return c.Service.ShutdownHTTPGrace }, time.Minute},
		{"webhooks", map[string]string{"WEBHOOK_ALLOW_PRIVATE_TEST": "true", "WEBHOOK_RETRY_BASE": "5s"},
			func(c Config) any {
				return [2]any{c.wiringConfig().Webhooks.AllowPrivateTest, c.wiringConfig().Webhooks.RetryBase}
			}, [2]any{true, 5 * time.Second}},
		{"request timeout", map[string]string{"REQUEST_TIMEOUT": "7s"}, func(c Config) any { return c.wiringConfig().HTTPTimeouts.Request }, 7 * time.Second},
		{"policy", map[string]string{"POLICY_ENFORCEMENT": " Enforce "}, func(c Config) any { return c.wiringConfig().PolicyEnforcement }, policy.ModeEnforce},
		{"issuing provider default", map[string]string{}, func(c Config) any { return c.wiringConfig().IssuingProvider }, ports.IssuingSafeDebit},
		{"issuing provider", map[string]string{"ISSUING_PROVIDER": " Funding_Account "}, func(c Config) any { return c.wiringConfig().IssuingProvider }, ports.IssuingFundingAccount},
		{"operator token trimmed", map[string]string{"OPERATOR_TOKEN": " " + hex32 + " "}, func(c Config) any { return c.wiringConfig().OperatorToken }, hex32},
		{"cipher key", map[string]string{"CIPHER_KEY": hex32}, func(c Config) any { k, _ := c.cipherKey(); return k }, hex32},
		{"session secret", map[string]string{"SESSION_SECRET": hex32}, func(c Config) any { s, _ := c.sessionSecret(); return s }, hex32},
		{"wallet quota", map[string]string{"MAX_WALLETS_PER_TENANT": "3"}, func(c Config) any { return c.wiringConfig().MaxWalletsPerTenant }, 3},
		{"faucet", map[string]string{"FAUCET_DRIPS_PER_WALLET": "1", "FAUCET_DRIPS_PER_TENANT": "2", "FAUCET_WINDOW": "24h"},
			func(c Config) any { return c.wiringConfig().Faucet }, wallet.FaucetLimits{PerWallet: 1, PerTenant: 2, Window: 24 * time.Hour}},
		{"claim budgets", map[string]string{"CLAIM_CODES_PER_PHONE": "2", "CLAIM_CODES_PER_IP": "9", "CLAIM_RESENDS_PER_CLAIM": "1"},
			func(c Config) any {
				w := c.wiringConfig()
				return []int{w.ClaimCodesPerPhone, w.ClaimCodesPerIP, w.ClaimResendsPerClaim}
			}, []int{2, 9, 1}},
		{"claim link throttle", map[string]string{"CLAIM_LINK_RATE_PER_MINUTE": "120", "CLAIM_LINK_RATE_BURST": "5"},
			func(c Config) any { return c.wiringConfig().ClaimLinkRateLimit }, http.RateLimit{PerSecond: 2, Burst: 5}},
		{"checkout", map[string]string{"CHECKOUT_CONFIRMATIONS": "5", "CHECKOUT_LIFETIME": "1h", "CHECKOUT_PAGE_BASE_URL": "https://pay.example/"},
			func(c Config) any {
				w := c.wiringConfig()
				return []any{w.Checkout.Confirmations, w.Checkout.Lifetime, w.CheckoutPageBase}
			},
			[]any{uint64(5), time.Hour, "https://pay.example"}},
		{"claim link", map[string]string{"CLAIM_LIFETIME": "48h", "CLAIM_LINK_BASE": " https://pay.example/c/ "},
			func(c Config) any { w := c.wiringConfig(); return []any{w.ClaimLifetime, w.ClaimLinkBase} }, []any{48 * time.Hour, "https://pay.example/c/"}},
		{"payouts", map[string]string{"PAYOUT_WALLET_A_MODE": "Mock", "PAYOUT_WALLET_A_WEBHOOK_SECRET": "s3cret", "OFFRAMP_QUOTE_LIFETIME": "1m", "OFFRAMP_POLL_INTERVAL": "1s", "OFFRAMP_POLL_WINDOW": "2h",
			"OFFRAMP_QUOTE_EXPIRY_INTERVAL": "3s", "OFFRAMP_HOLD_RECHECK_INTERVAL": "1m",
			"OFFRAMP_PHONE_REVERIFY_AFTER": "720h", "PAYOUT_WALLET_B_LIQUIDITY_USD": "250"},
			func(c Config) any { return c.wiringConfig().Payouts }, wiring.PayoutConfig{
				Modes: map[string]ports.ProviderMode{"wallet_a": ports.ModeMock}, WebhookSecrets: map[string]string{"wallet_a": "s3cret"},
				QuoteLifetime: time.Minute, PollInterval: time.Second, PollWindow: 2 * time.Hour,
				QuoteExpiryInterval: 3 * time.Second, HoldRecheckInterval: time.Minute,
				PhoneReverifyAfter: 720 * time.Hour, Liquidity: map[string]int64{"wallet_b": 250_000_000}}},
		{"dev chain off", map[string]string{"CORRIDOR_DEV_CHAIN": "OFF"}, func(c Config) any { return c.Chain.DevChain }, onOff(false)},
		{"chain endpoints", map[string]string{"CHAIN_RPC_URL": "http://127.0.0.1:1", "RELAYER_PRIVATE_KEY": key32, "USDC_ADDRESS": "0x00000000000000000000000000000000000000aa",
			"LIVE_CHAIN_ADDRESSES_FILE": "live.json"},
			func(c Config) any {
				return []string{c.Chain.endpoint(core.EnvTest).RPCURL.reveal(), c.Chain.endpoint(core.EnvTest).USDC, c.Chain.endpoint(core.EnvLive).AddressesFile, c.Chain.endpoint(core.EnvLive).USDC}
			}, []string{"http://127.0.0.1:1", "0x00000000000000000000000000000000000000aa", "live.json", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"}},
		{"chain dial timeout", map[string]string{"CHAIN_DIAL_TIMEOUT": "5s"}, func(c Config) any { return c.Chain.DialTimeout }, 5 * time.Second},
		{"chain rpc timeout", map[string]string{"CHAIN_RPC_TIMEOUT": "2s"}, func(c Config) any { return c.Chain.RPCTimeout }, 2 * time.Second},
		{"chain confirmations", map[string]string{"CHAIN_CONFIRMATIONS": "3", "LIVE_CHAIN_CONFIRMATIONS": "64"},
			func(c Config) any { return c.wiringConfig().ChainConfirmations }, map[core.Environment]uint64{core.EnvTest: 3, core.EnvLive: 64}},
		{"db timeouts", map[string]string{"DB_STATEMENT_TIMEOUT": "5s", "DB_IDLE_IN_TX_TIMEOUT": "2m"},
			func(c Config) any {
				w := c.wiringConfig()
				return []time.Duration{w.DBStatementTimeout, w.DBIdleInTxTimeout}
			},
			[]time.Duration{5 * time.Second, 2 * time.Minute}},
		{"trusted proxies", map[string]string{"TRUSTED_PROXIES": "10.1.0.0/16, 192.168.1.7 ,2001:db8::/32,,10.2.3.4/8"},
			func(c Config) any { return c.wiringConfig().TrustedProxies }, []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"),
				netip.MustParsePrefix("192.168.1.7/32"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("10.0.0.0/8")}},
		{"cipher rotation", map[string]string{"CIPHER_KEY": key32, "CIPHER_PREVIOUS_KEYS": hex32, "CIPHER_LOOKUP_KEY": hex32},
			func(c Config) any { w := c.wiringConfig(); return []string{w.CipherPreviousKeys, w.CipherLookupKey} }, []string{hex32, hex32}},
		{"oidc", map[string]string{"IDENTITY_PROVIDER": " OIDC", "OIDC_ISSUER": " https://id.example/ ", "OIDC_AUDIENCE": "https://api.example",
			"OIDC_JWKS_URL": "https://id.example/keys", "OIDC_MAX_TOKEN_LIFETIME": "1h", "OIDC_JWKS_TIMEOUT": "2s"},
			func(c Config) any { return c.Identity }, identityConfig{Provider: providerOIDC, Issuer: "https://id.example/",
				Audience: "https://api.example", JWKSURL: "https://id.example/keys", MaxTokenLifetime: time.Hour, JWKSTimeout: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // the data dir secrets, if any, land here
			c, err := loadConfig(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.got(c); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestConfig_BadValues: each kind of bad value stops the start with one line naming the
// variable; secrets are never quoted.
func TestConfig_BadValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"not an integer", map[string]string{"FAUCET_DRIPS_PER_WALLET": "abc"}, `config: FAUCET_DRIPS_PER_WALLET: "abc" is not an integer`},
		{"not a number", map[string]string{"RATE_LIMIT_PER_SECOND": "fast"}, `config: RATE_LIMIT_PER_SECOND: "fast" is not a number`},
		{"unknown rate limit store", map[string]string{"RATE_LIMIT_STORE": "redis"}, `config: RATE_LIMIT_STORE: "redis" is not memory or postgres`},
		{"not a boolean", map[string]string{"WEBHOOK_ALLOW_PRIVATE_TEST": "maybe"}, `config: WEBHOOK_ALLOW_PRIVATE_TEST: "maybe" is not true or false`},
		{"not a finite number", map[string]string{"RATE_LIMIT_PER_SECOND": "NaN"}, `config: RATE_LIMIT_PER_SECOND: "NaN" is not a number`},
		{"not a duration", map[string]string{"HTTP_READ_TIMEOUT": "15"}, `config: HTTP_READ_TIMEOUT: "15" is not a positive duration such as 90s, 5m or 24h`},
		{"negative duration", map[string]string{"CLAIM_LIFETIME": "-1h"}, `config: CLAIM_LIFETIME: "-1h" is not a positive duration such as 90s, 5m or 24h`},
		{"zero duration", map[string]string{"SHUTDOWN_HTTP_GRACE": "0s"}, `config: SHUTDOWN_HTTP_GRACE: "0s" is not a positive duration such as 90s, 5m or 24h`},
		{"pool size 0", map[string]string{"DB_MAX_CONNS": "0"}, `config: DB_MAX_CONNS: "0" is less than 1`},
		{"negative rate", map[string]string{"RATE_LIMIT_PER_SECOND": "-1"}, `config: RATE_LIMIT_PER_SECOND: "-1" is less than 0`},
		{"port too large", map[string]string{"PORT": "70000"}, `config: PORT: "70000" is more than 65535`},
		{"faucet 0", map[string]string{"FAUCET_DRIPS_PER_TENANT": "0"}, `config: FAUCET_DRIPS_PER_TENANT: "0" is less than 1`},
		{"claim budget 0", map[string]string{"CLAIM_CODES_PER_PHONE": "0"}, `config: CLAIM_CODES_PER_PHONE: "0" is less than 1`},
		{"unknown policy", map[string]string{"POLICY_ENFORCEMENT": "strict"}, `config: POLICY_ENFORCEMENT: "strict" is not off, log or enforce`},
		{"unknown issuing provider", map[string]string{"ISSUING_PROVIDER": "prepaid"}, `config: ISSUING_PROVIDER: "prepaid" is not safe_debit or funding_account`},
		{"unknown log level", map[string]string{"LOG_LEVEL": "loud"}, `config: LOG_LEVEL: "loud" is not debug, info, warn or error`},
		{"unknown provider mode", map[string]string{"PAYOUT_INTERNAL_MODE": "live", "PAYOUT_WALLET_A_MODE": "maybe"}, `config: PAYOUT_WALLET_A_MODE: "maybe" is not off, mock, sandbox or live`},
		{"first provider named", map[string]string{"PAYOUT_INTERNAL_MODE": "on", "PAYOUT_WALLET_A_MODE": "mock"}, `config: PAYOUT_INTERNAL_MODE: "on" is not off, mock, sandbox or live`},
		{"live confirmations 0", map[string]string{"LIVE_CHAIN_CONFIRMATIONS": "0"}, `config: LIVE_CHAIN_CONFIRMATIONS: "0" is less than 1`},
		{"confirmations too deep", map[string]string{"CHAIN_CONFIRMATIONS": "1001"}, `config: CHAIN_CONFIRMATIONS: "1001" is more than 1000`},
		{"dev chain switch", map[string]string{"CORRIDOR_DEV_CHAIN": "maybe"}, `config: CORRIDOR_DEV_CHAIN: "maybe" is not on or off`},
		{"usdc address", map[string]string{"LIVE_USDC_ADDRESS": "0x12"}, `config: LIVE_USDC_ADDRESS: "0x12" is not a hex address`},
		{"short operator token", map[string]string{"OPERATOR_TOKEN": "too-short-token"}, `config: OPERATOR_TOKEN: must be at least 32 characters (it has 15)`},
		{"short session secret", map[string]string{"SESSION_SECRET": "abc"}, `config: SESSION_SECRET: must be at least 32 characters (it has 3)`},
		{"cipher key not hex", map[string]string{"CIPHER_KEY": strings.Repeat("zz", 32)}, `config: CIPHER_KEY: must be hex-encoded and at least 32 bytes (64 hex digits)`},
		{"cipher key short", map[string]string{"CIPHER_KEY": "abcd"}, `config: CIPHER_KEY: must be hex-encoded and at least 32 bytes (64 hex digits)`},
		{"claim link base", map[string]string{"CLAIM_LINK_BASE": "claim.example/c/"}, `config: CLAIM_LINK_BASE: "claim.example/c/" is not an http or https URL`},
		{"checkout page base", map[string]string{"CHECKOUT_PAGE_BASE_URL": "pay.example"}, `config: CHECKOUT_PAGE_BASE_URL: "pay.example" is not an http or https URL`},
		{"relayer key missing", map[string]string{"LIVE_CHAIN_RPC_URL": "http://127.0.0.1:1"}, `config: LIVE_RELAYER_PRIVATE_KEY: is required when LIVE_CHAIN_RPC_URL is set: the relayer pays gas`},
		{"relayer key malformed", map[string]string{"RELAYER_PRIVATE_KEY": "0xnothex"}, `config: RELAYER_PRIVATE_KEY: is not a hex secp256k1 private key`},
		{"unknown identity provider", map[string]string{"IDENTITY_PROVIDER": "ldap"}, `config: IDENTITY_PROVIDER: "ldap" is not sandbox or oidc`},
		{"oidc without issuer", map[string]string{"IDENTITY_PROVIDER": "oidc", "OIDC_AUDIENCE": "a"}, `config: OIDC_ISSUER: is required with IDENTITY_PROVIDER=oidc`},
		{"oidc issuer in clear", map[string]string{"IDENTITY_PROVIDER": "oidc", "OIDC_ISSUER": "http://id.example", "OIDC_AUDIENCE": "a"},
			`config: OIDC_ISSUER: "http://id.example" is not an https URL (http only on a loopback host)`},
		{"oidc without audience", map[string]string{"IDENTITY_PROVIDER": "oidc", "OIDC_ISSUER": "https://id.example"},
			`config: OIDC_AUDIENCE: is required with IDENTITY_PROVIDER=oidc: without it a token minted for any application of the provider would do`},
		{"oidc key set in clear", map[string]string{"IDENTITY_PROVIDER": "oidc", "OIDC_ISSUER": "https://id.example", "OIDC_AUDIENCE": "a", "OIDC_JWKS_URL": "http://id.example/k"},
			`config: OIDC_JWKS_URL: "http://id.example/k" is not an https URL (http only on a loopback host)`},
		{"trusted proxy not a network", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"}, `config: TRUSTED_PROXIES: "proxy.internal" is not a CIDR or an IP address`},
		{"rotation without lookup key", map[string]string{"CIPHER_KEY": key32, "CIPHER_PREVIOUS_KEYS": hex32},
			`config: CIPHER_LOOKUP_KEY: is required with CIPHER_PREVIOUS_KEYS: set it to the key the stored lookup hashes were made with (the CIPHER_KEY before the first rotation)`},
		{"rotation without primary", map[string]string{"CIPHER_PREVIOUS_KEYS": hex32, "CIPHER_LOOKUP_KEY": hex32},
			`config: CIPHER_PREVIOUS_KEYS: needs CIPHER_KEY: a rotation starts from a configured key`},
		{"previous key malformed", map[string]string{"CIPHER_KEY": key32, "CIPHER_PREVIOUS_KEYS": hex32 + ",abcd", "CIPHER_LOOKUP_KEY": hex32},
			`config: CIPHER_PREVIOUS_KEYS: must be hex-encoded and at least 32 bytes (64 hex digits)`},
		{"lookup key malformed", map[string]string{"CIPHER_KEY": key32, "CIPHER_LOOKUP_KEY": "abcd"},
			`config: CIPHER_LOOKUP_KEY: must be hex-encoded and at least 32 bytes (64 hex digits)`},
		{"previous key is the primary", map[string]string{"CIPHER_KEY": key32, "CIPHER_PREVIOUS_KEYS": key32, "CIPHER_LOOKUP_KEY": key32},
			`config: CIPHER_PREVIOUS_KEYS: names CIPHER_KEY or one key twice`},
		{"first bad variable wins", map[string]string{"DB_MAX_CONNS": "x", "OFFRAMP_POLL_INTERVAL": "y"}, `config: DB_MAX_CONNS: "x" is not an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadConfig(tc.env)
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("more than one line: %q", err)
			}
		})
	}
}

// TestConfig_EveryFieldDocumented: every field is a variable (or env:"-") with a description
// and a default, every group has a heading, names are unique, and every type has a parser that
// names the variable when it refuses a value.
func TestConfig_EveryFieldDocumented(t *testing.T) {
	var check func(t reflect.Type, top bool)
	check = func(typ reflect.Type, top bool) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Tag.Get("env") == "-" {
				continue
			}
			if f.Type.Kind() == reflect.Struct {
				if top && f.Tag.Get("desc") == "" {
					t.Errorf("group %s has no desc", f.Name)
				}
				check(f.Type, false)
				continue
			}
			if f.Tag.Get("env") == "" || f.Tag.Get("desc") == "" {
				t.Errorf("%s.%s needs env and desc tags", typ.Name(), f.Name)
			}
			if _, ok := f.Tag.Lookup("envDefault"); !ok && f.Tag.Get("defaultDesc") == "" {
				t.Errorf("%s.%s needs envDefault or defaultDesc", typ.Name(), f.Name)
			}
			if _, ok := valueParsers[f.Type]; !ok && f.Type.Kind() != reflect.String {
				t.Errorf("%s.%s: type %s has no entry in valueParsers", typ.Name(), f.Name, f.Type)
			}
		}
	}
	check(reflect.TypeFor[Config](), true)
	seen := map[string]bool{}
	for _, v := range configVars() {
		if seen[v.Key] {
			t.Errorf("%s is declared twice", v.Key)
		}
		seen[v.Key] = true
	}
	if len(seen) < 40 {
		t.Fatalf("only %d variables found", len(seen))
	}
}

// TestConfig_EveryPayoutProvider: a provider added to wiring without a variable here would
// silently stay off.
func TestConfig_EveryPayoutProvider(t *testing.T) {
	var names []string
	for name := range (payoutsConfig{}).byName() {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := wiring.PayoutProviderNames(); !slices.Equal(names, want) {
		t.Fatalf("payoutsConfig knows %v, wiring %v", names, want)
	}
	for _, v := range configVars() {
		if strings.HasPrefix(v.Key, "PAYOUT_") {
			provider := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(v.Key, "PAYOUT_"), "_MODE"), "_WEBHOOK_SECRET"), "_LIQUIDITY_USD"))
			if !slices.Contains(names, provider) {
				t.Errorf("%s names no provider", v.Key)
			}
		}
	}
}

func TestSandboxPayoutDefaults(t *testing.T) {
	c, err := loadConfig(map[string]string{"PAYOUT_WALLET_A_MODE": "off"})
	if err != nil {
		t.Fatal(err)
	}
	got := sandboxPayoutDefaults(c.Payouts.wiring()).Modes
	if want := map[string]ports.ProviderMode{"internal": ports.ModeLive, "onchain": ports.ModeMock, "wallet_a": ports.ModeOff, "wallet_b": ports.ModeMock}; !reflect.DeepEqual(got, want) {
		t.Fatalf("modes = %v, want %v", got, want)
	}
}

// TestHelp_ListsEveryVariable: `corridor help` is generated from Config.
func TestHelp_ListsEveryVariable(t *testing.T) {
	var out bytes.Buffer
	writeConfigHelp(&out)
	for _, v := range configVars() {
		if !strings.Contains(out.String(), "\n  "+v.Key+"  [default: "+v.defaultText()) {
			t.Errorf("help does not list %s with its default", v.Key)
		}
	}
}

// TestOperationsDoc_ConfigTable: the table in docs/operations.md is the one Config generates.
// `go test ./cmd/corridor -run TestOperationsDoc -update` rewrites it.
func TestOperationsDoc_ConfigTable(t *testing.T) {
	const path = "../../docs/operations.md"
	const begin, end = "<!-- config table: generated from cmd/corridor Config -->\n", "<!-- end of config table -->\n"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q and %q", path, begin, end)
	}
	want := configMarkdown()
	if got := doc[i+len(begin) : j]; got != want {
		if *updateDocs {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("docs/operations.md's configuration table is stale; run go test ./cmd/corridor -run TestOperationsDoc -update\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestServe_RefusesLiveWithSandboxKeys: a deployment that serves LIVE (a LIVE chain is
// configured) does not start with sandbox sessions or without a configured cipher key, under
// serve and run alike, with one line naming the variable; TEST-only deployments keep both.
func TestServe_RefusesLiveWithSandboxKeys(t *testing.T) {
	t.Chdir(t.TempDir()) // nothing may land in a data dir, but if it did, here
	live := map[string]string{"LIVE_CHAIN_RPC_URL": "http://127.0.0.1:1", "LIVE_RELAYER_PRIVATE_KEY": key32}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range []map[string]string{live, extra} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	oidc := map[string]string{"IDENTITY_PROVIDER": "oidc", "OIDC_ISSUER": "https://id.example/", "OIDC_AUDIENCE": "corridor"}
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name  string
		env   map[string]string
		local bool
		want  string
	}{
		{"serve with sandbox sessions", with(map[string]string{"CIPHER_KEY": hex32, "SESSION_SECRET": hex32}), false,
			"config: IDENTITY_PROVIDER: sandbox sessions (HS256, one shared secret) cannot serve LIVE (LIVE_CHAIN_RPC_URL is set): set IDENTITY_PROVIDER=oidc with OIDC_ISSUER and OIDC_AUDIENCE"},
		{"run with sandbox sessions", with(map[string]string{"CIPHER_KEY": hex32}), true,
			"config: IDENTITY_PROVIDER: sandbox sessions (HS256, one shared secret) cannot serve LIVE (LIVE_CHAIN_RPC_URL is set): set IDENTITY_PROVIDER=oidc with OIDC_ISSUER and OIDC_AUDIENCE"},
		{"oidc without a cipher key", with(oidc), false,
			"config: CIPHER_KEY: is required when LIVE is served (LIVE_CHAIN_RPC_URL is set): a key generated into the data dir is for TEST and local runs only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadConfig(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Local = tc.local
			// The database URL is never reached: the refusal comes first.
			err = serveURL(context.Background(), cfg, "postgres://127.0.0.1:1/unreachable", discard)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n got: %v\nwant: %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), hex32) {
				t.Fatalf("not one clean line: %q", err)
			}
			if _, statErr := os.Stat(".data"); statErr == nil {
				t.Fatal("a refused start wrote into the data dir")
			}
		})
	}
	for name, env := range map[string]map[string]string{
		"LIVE with oidc and a cipher key":    with(mergeEnv(oidc, map[string]string{"CIPHER_KEY": hex32})),
		"TEST only with sandbox and no key":  {},
		"TEST chain with sandbox and no key": {"CHAIN_RPC_URL": "http://127.0.0.1:1", "RELAYER_PRIVATE_KEY": key32},
	} {
		t.Run("allowed: "+name, func(t *testing.T) {
			cfg, err := loadConfig(env)
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.checkServe(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mergeEnv(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestOperatorToken_KeptForLocalRuns: `corridor run` without OPERATOR_TOKEN generates one into
// the data dir (0600) and keeps it across restarts, and its first steps say where it is (never
// the token); a configured token wins; `corridor serve` generates nothing (admin routes off).
func TestOperatorToken_KeptForLocalRuns(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := loadConfig(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if token, err := cfg.operatorToken(); err != nil || token != "" {
		t.Fatalf("serve: token %q, err %v; want none", token, err)
	}
	if _, err := os.Stat(".data/operator.token"); err == nil {
		t.Fatal("serve wrote an operator token")
	}
	cfg.Local = true
	first, err := cfg.operatorToken()
	if err != nil || len(first) < 32 {
		t.Fatalf("run: token %q, err %v", first, err)
	}
	again, _ := cfg.operatorToken()
	info, err := os.Stat(".data/operator.token")
	if err != nil || again != first || info.Mode().Perm() != 0o600 {
		t.Fatalf("kept token %q (first %q), file %v, err %v", again, first, info, err)
	}
	hint := operatorTokenHint(cfg)
	if !strings.Contains(hint, ".data/operator.token") || strings.Contains(hint, first) {
		t.Fatalf("first steps: %q", hint)
	}
	set, err := loadConfig(map[string]string{"OPERATOR_TOKEN": hex32})
	if err != nil {
		t.Fatal(err)
	}
	set.Local = true
	if token, _ := set.operatorToken(); token != hex32 || operatorTokenHint(set) != "" {
		t.Fatalf("configured token: %q, hint %q", token, operatorTokenHint(set))
	}
}

// TestConfig_PipelineOnByDefault: `run` and `serve` commit through the store's pipeline (two
// lanes) unless STORE_PIPELINE_LANES=0 turns it off (docs/decisions/reliability.md: no unit of work calls out).
func TestConfig_PipelineOnByDefault(t *testing.T) {
	c, err := loadConfig(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if lanes := c.wiringConfig().StorePipeline.Lanes; lanes != 2 {
		t.Fatalf("default pipeline lanes %d, want 2", lanes)
	}
	off, err := loadConfig(map[string]string{"STORE_PIPELINE_LANES": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if lanes := off.wiringConfig().StorePipeline.Lanes; lanes != 0 {
		t.Fatalf("STORE_PIPELINE_LANES=0 left %d lanes", lanes)
	}
	if c.wiringConfig().StorePipeline.Overlap {
		t.Fatal("the lanes overlap their batches by default")
	}
	overlap, err := loadConfig(map[string]string{"STORE_PIPELINE_OVERLAP": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if !overlap.wiringConfig().StorePipeline.Overlap {
		t.Fatal("STORE_PIPELINE_OVERLAP=true did not reach the store")
	}
}
