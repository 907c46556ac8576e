package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/cipher"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// configError is a configuration value the binary refuses: one line naming the variable, so
// an operator sees at once what to fix.
type configError struct {
	key, problem string
}

func (e configError) Error() string { return "config: " + e.key + ": " + e.problem }

// logLevel is LOG_LEVEL, checked against slog's level names.
type logLevel string

// level is the slog level; loadConfig has checked it parses.
func (l logLevel) level() slog.Level {
	var out slog.Level
	_ = out.UnmarshalText([]byte(l))
	return out
}

// onOff is a switch written on or off (true/false and 1/0 are accepted too).
type onOff bool

// hexAddress is a 0x-prefixed 20-byte hex address.
type hexAddress string

// rateLimitStore is RATE_LIMIT_STORE: where the request limits are counted.
type rateLimitStore string

// The rate limit stores: memory counts in each process (one replica), postgres in the
// database every replica shares.
const (
	rateLimitMemory   rateLimitStore = "memory"
	rateLimitPostgres rateLimitStore = "postgres"
)

// identityProvider is IDENTITY_PROVIDER.
type identityProvider string

// The identity providers this build has.
const (
	providerSandbox identityProvider = "sandbox"
	providerOIDC    identityProvider = "oidc"
)

// cidrList is a comma-separated list of networks; a bare address is its own /32 or /128.
type cidrList []netip.Prefix

// parseCIDRList reads TRUSTED_PROXIES.
func parseCIDRList(v string) (cidrList, error) {
	var out cidrList
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR or an IP address", item)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// valueParsers read one value per type and say what is wrong with a value they refuse. Every
// type in Config other than strings and secrets has one, so no value reaches the library's
// own parsers (whose errors name Go fields, not variables).
var valueParsers = map[reflect.Type]func(string) (any, error){
	reflect.TypeFor[int](): func(v string) (any, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", v)
		}
		return n, nil
	},
	reflect.TypeFor[bool](): func(v string) (any, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", v)
		}
		return b, nil
	},
	reflect.TypeFor[float64](): func(v string) (any, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return f, nil
	},
	// Every duration in Config is a lifetime, an interval or a time-out: zero or negative is
	// always a mistake.
	reflect.TypeFor[time.Duration](): func(v string) (any, error) {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q is not a positive duration such as 90s, 5m or 24h", v)
		}
		return d, nil
	},
	reflect.TypeFor[logLevel](): func(v string) (any, error) {
		var l slog.Level
		if err := l.UnmarshalText([]byte(strings.TrimSpace(v))); err != nil {
			return nil, fmt.Errorf("%q is not debug, info, warn or error", v)
		}
		return logLevel(strings.ToLower(strings.TrimSpace(v))), nil
	},
	reflect.TypeFor[onOff](): func(v string) (any, error) {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on", "true", "1":
			return onOff(true), nil
		case "off", "false", "0":
			return onOff(false), nil
		}
		return nil, fmt.Errorf("%q is not on or off", v)
	},
	reflect.TypeFor[hexAddress](): func(v string) (any, error) {
		if v = strings.TrimSpace(v); !common.IsHexAddress(v) {
			return nil, fmt.Errorf("%q is not a hex address", v)
		}
		return hexAddress(v), nil
	},
	reflect.TypeFor[identityProvider](): func(v string) (any, error) {
		switch p := identityProvider(strings.ToLower(strings.TrimSpace(v))); p {
		case providerSandbox, providerOIDC:
			return p, nil
		}
		return nil, fmt.Errorf("%q is not sandbox or oidc", v)
	},
	reflect.TypeFor[rateLimitStore](): func(v string) (any, error) {
		switch st := rateLimitStore(strings.ToLower(strings.TrimSpace(v))); st {
		case rateLimitMemory, rateLimitPostgres:
			return st, nil
		}
		return nil, fmt.Errorf("%q is not memory or postgres", v)
	},
	reflect.TypeFor[cidrList](): func(v string) (any, error) { return parseCIDRList(v) },
	reflect.TypeFor[policy.Mode](): func(v string) (any, error) {
		mode, ok := policy.ParseMode(strings.ToLower(strings.TrimSpace(v)))
		if !ok {
			return nil, fmt.Errorf("%q is not off, log or enforce", v)
		}
		return mode, nil
	},
	reflect.TypeFor[ports.IssuingProvider](): func(v string) (any, error) {
		switch p := ports.IssuingProvider(strings.ToLower(strings.TrimSpace(v))); p {
		case ports.IssuingSafeDebit, ports.IssuingFundingAccount:
			return p, nil
		}
		return nil, fmt.Errorf("%q is not safe_debit or funding_account", v)
	},
	reflect.TypeFor[ports.ProviderMode](): func(v string) (any, error) {
		switch mode := ports.ProviderMode(strings.ToLower(strings.TrimSpace(v))); mode {
		case ports.ModeOff, ports.ModeMock, ports.ModeSandbox, ports.ModeLive:
			return mode, nil
		}
		return nil, fmt.Errorf("%q is not off, mock, sandbox or live", v)
	},
}

// loadConfig reads Config from environ (os.Environ as a map in main, a literal map in tests)
// and checks it. The error is the first bad variable in the struct's order, as one line.
func loadConfig(environ map[string]string) (Config, error) {
	var c Config
	// The library calls OnSet with a variable's name right before parsing its value, so a
	// parser that refuses a value knows which variable it came from.
	var current string
	opts := env.Options{
		Environment: environ,
		OnSet:       func(key string, _ any, _ bool) { current = key },
		FuncMap:     map[reflect.Type]env.ParserFunc{},
	}
	for t, parse := range valueParsers {
		opts.FuncMap[t] = func(v string) (any, error) {
			out, err := parse(v)
			if err != nil {
				return nil, configError{current, err.Error()}
			}
			return out, nil
		}
	}
	if err := env.ParseWithOptions(&c, opts); err != nil {
		return Config{}, firstConfigError(err)
	}
	c.Service.OperatorToken = secret(strings.TrimSpace(c.Service.OperatorToken.reveal()))
	c.Claims.LinkBase = strings.TrimSpace(c.Claims.LinkBase)
	c.Identity.Issuer, c.Identity.Audience = strings.TrimSpace(c.Identity.Issuer), strings.TrimSpace(c.Identity.Audience)
	c.Identity.JWKSURL = strings.TrimSpace(c.Identity.JWKSURL)
	c.Identity.ClientID, c.Identity.RedirectURL = strings.TrimSpace(c.Identity.ClientID), strings.TrimSpace(c.Identity.RedirectURL)
	c.Identity.AuthorizationURL, c.Identity.TokenURL = strings.TrimSpace(c.Identity.AuthorizationURL), strings.TrimSpace(c.Identity.TokenURL)
	if err := checkBounds(c); err != nil {
		return Config{}, err
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// firstConfigError picks the first refusal out of the library's aggregate error.
func firstConfigError(err error) error {
	var all env.AggregateError
	if !errors.As(err, &all) || len(all.Errors) == 0 {
		return fmt.Errorf("config: %w", err)
	}
	first := all.Errors[0]
	var parse env.ParseError
	var refused configError
	if errors.As(first, &parse) && errors.As(parse.Err, &refused) {
		return refused
	}
	return fmt.Errorf("config: %w", first)
}

// checkBounds applies the min, max and minLength tags. A secret's value is never quoted.
func checkBounds(c Config) error {
	root := reflect.ValueOf(c)
	for _, v := range configVars() {
		field := root.FieldByIndex(v.Index)
		if v.MinLength != "" {
			n, _ := strconv.Atoi(v.MinLength)
			value := field.String()
			if value != "" && len(value) < n {
				return configError{v.Key, fmt.Sprintf("must be at least %d characters (it has %d)", n, len(value))}
			}
		}
		var number float64
		switch field.Kind() {
		case reflect.Int:
			number = float64(field.Int())
		case reflect.Float64:
			number = field.Float()
		default:
			continue
		}
		if bound, err := strconv.ParseFloat(v.Min, 64); err == nil && number < bound {
			return configError{v.Key, fmt.Sprintf("%q is less than %s", fmt.Sprint(field.Interface()), v.Min)}
		}
		if bound, err := strconv.ParseFloat(v.Max, 64); err == nil && number > bound {
			return configError{v.Key, fmt.Sprintf("%q is more than %s", fmt.Sprint(field.Interface()), v.Max)}
		}
	}
	return nil
}

// validate checks what one variable's type cannot say: a key's encoding, a URL's form, a
// variable another one requires.
func (c Config) validate() error {
	if err := c.Service.validateCipherKeys(); err != nil {
		return err
	}
	if err := c.Identity.validate(); err != nil {
		return err
	}
	if u, err := url.Parse(c.Claims.LinkBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return configError{"CLAIM_LINK_BASE", fmt.Sprintf("%q is not an http or https URL", c.Claims.LinkBase)}
	}
	if base := strings.TrimSpace(c.HTTP.PublicBaseURL); base != "" {
		if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
			return configError{"PUBLIC_BASE_URL", fmt.Sprintf("%q is not an http or https origin", base)}
		}
	}
	if base := strings.TrimSpace(c.Checkout.PageBaseURL); base != "" {
		if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return configError{"CHECKOUT_PAGE_BASE_URL", fmt.Sprintf("%q is not an http or https URL", base)}
		}
	}
	return c.Chain.validate()
}

// validateCipherKeys checks the keys' encoding, and that a rotation keeps the lookup hashes'
// key: rotating CIPHER_KEY without CIPHER_LOOKUP_KEY would make every stored phone number and
// payout identifier unfindable.
func (c serviceConfig) validateCipherKeys() error {
	const encoding = "must be hex-encoded and at least 32 bytes (64 hex digits)"
	primary := c.CipherKey.reveal()
	if c.CipherKey.set() {
		if b, err := hex.DecodeString(primary); err != nil || len(b) < cipher.MinKeyLength {
			return configError{"CIPHER_KEY", encoding}
		}
	}
	if !c.CipherPreviousKeys.set() && !c.CipherLookupKey.set() {
		return nil
	}
	if !c.CipherKey.set() {
		key := "CIPHER_PREVIOUS_KEYS"
		if !c.CipherPreviousKeys.set() {
			key = "CIPHER_LOOKUP_KEY"
		}
		return configError{key, "needs CIPHER_KEY: a rotation starts from a configured key"}
	}
	if c.CipherPreviousKeys.set() && !c.CipherLookupKey.set() {
		return configError{"CIPHER_LOOKUP_KEY", "is required with CIPHER_PREVIOUS_KEYS: set it to the key the stored lookup hashes were made with (the CIPHER_KEY before the first rotation)"}
	}
	keys, err := cipher.ParseHexKeys(primary, c.CipherPreviousKeys.reveal(), c.CipherLookupKey.reveal())
	if err != nil {
		for _, name := range []string{"CIPHER_PREVIOUS_KEYS", "CIPHER_LOOKUP_KEY"} {
			if strings.Contains(err.Error(), name) {
				return configError{name, encoding}
			}
		}
		return configError{"CIPHER_KEY", encoding}
	}
	if _, err := cipher.NewWithKeys(keys); err != nil {
		return configError{"CIPHER_PREVIOUS_KEYS", "names CIPHER_KEY or one key twice"}
	}
	return nil
}

// validate checks the OIDC settings when the provider is oidc.
func (c identityConfig) validate() error {
	if c.Provider != providerOIDC {
		return nil
	}
	if c.Issuer == "" {
		return configError{"OIDC_ISSUER", "is required with IDENTITY_PROVIDER=oidc"}
	}
	if err := identity.CheckProviderURL("OIDC_ISSUER", c.Issuer); err != nil {
		return configError{"OIDC_ISSUER", fmt.Sprintf("%q is not an https URL (http only on a loopback host)", c.Issuer)}
	}
	if c.Audience == "" {
		return configError{"OIDC_AUDIENCE", "is required with IDENTITY_PROVIDER=oidc: without it a token minted for any application of the provider would do"}
	}
	for name, u := range map[string]string{"OIDC_JWKS_URL": c.JWKSURL, "OIDC_AUTHORIZATION_URL": c.AuthorizationURL, "OIDC_TOKEN_URL": c.TokenURL} {
		if u == "" {
			continue
		}
		if err := identity.CheckProviderURL(name, u); err != nil {
			return configError{name, fmt.Sprintf("%q is not an https URL (http only on a loopback host)", u)}
		}
	}
	return nil
}
