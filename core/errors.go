// Package core holds Corridor's pure domain: money, identifiers, errors and one package per
// aggregate. Nothing here performs I/O or knows about HTTP, SQL or a chain.
package core

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Code is a stable machine-readable error code. Clients branch on it, so a code is never renamed.
type Code string

// Codes of docs/api.md (Errors) and docs/decisions/api.md. The HTTP adapter owns the code → status table.
const (
	CodeValidationFailed             Code = "VALIDATION_FAILED"
	CodeUnauthenticated              Code = "UNAUTHENTICATED"
	CodeInsufficientScope            Code = "INSUFFICIENT_SCOPE"
	CodeTenantRequired               Code = "TENANT_REQUIRED"
	CodeSandboxOnly                  Code = "SANDBOX_ONLY"
	CodeInvalidState                 Code = "INVALID_STATE"
	CodeIdempotencyKeyReused         Code = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyRequestInProgress Code = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
	CodeRateLimited                  Code = "RATE_LIMITED"
	CodeRouteNotFound                Code = "ROUTE_NOT_FOUND"
	CodeRequestTimeout               Code = "REQUEST_TIMEOUT"
	CodeMethodNotAllowed             Code = "METHOD_NOT_ALLOWED"
	CodePayloadTooLarge              Code = "PAYLOAD_TOO_LARGE"
	CodeHeadersTooLarge              Code = "HEADERS_TOO_LARGE"
	CodeUnsupportedMediaType         Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeInternal                     Code = "INTERNAL"
	CodeServiceUnavailable           Code = "SERVICE_UNAVAILABLE"
	CodeChainUnavailable             Code = "CHAIN_UNAVAILABLE"
	CodeProviderUnavailable          Code = "PROVIDER_UNAVAILABLE"
	CodeFeatureNotAvailable          Code = "FEATURE_NOT_AVAILABLE"

	CodeTenantNotFound Code = "TENANT_NOT_FOUND"
	CodeMemberNotFound Code = "MEMBER_NOT_FOUND"
	CodeAPIKeyNotFound Code = "API_KEY_NOT_FOUND"
	CodeInviteNotFound Code = "INVITE_NOT_FOUND"
	CodeWalletNotFound Code = "WALLET_NOT_FOUND"
	CodeHandleNotFound Code = "HANDLE_NOT_FOUND"
	CodeHandleTaken    Code = "HANDLE_TAKEN"
	CodeDripNotFound   Code = "DRIP_NOT_FOUND"
	// CodeJobNotFound answers an operator naming a background job that does not exist.
	CodeJobNotFound Code = "JOB_NOT_FOUND"

	// Ledger codes.
	CodeInsufficientFunds       Code = "INSUFFICIENT_FUNDS"
	CodeLedgerReferenceConflict Code = "LEDGER_REFERENCE_CONFLICT"
	CodeAccountNotFound         Code = "ACCOUNT_NOT_FOUND"
	CodeTransferNotFound        Code = "TRANSFER_NOT_FOUND"
	CodeAmountOverflow          Code = "AMOUNT_OVERFLOW"
)

// Error is the one domain error type. It carries a stable code, a human message and optional
// structured details that the HTTP adapter renders into the SPEC error envelope.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	// RetryAfter, when positive, marks a transient refusal (a dependency that did not answer in
	// time, a pool with no free connection): the HTTP adapter sends it as Retry-After. It is
	// zero for a refusal that a retry cannot cure soon, such as a feature this deployment does
	// not configure.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is matches any *Error with the same code, so sentinels work with errors.Is.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// HasCode reports whether err is, or wraps, the domain error with code. It looks through
// wrapping (errors.As), as every other error check in the project does: a cause wrapped with
// %w on its way up keeps its code.
func HasCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Sentinels for errors.Is checks; compare by code, never by message.
var (
	ErrValidation        = &Error{Code: CodeValidationFailed}
	ErrUnauthenticated   = &Error{Code: CodeUnauthenticated}
	ErrInsufficientScope = &Error{Code: CodeInsufficientScope}
	ErrInvalidState      = &Error{Code: CodeInvalidState}
	ErrInsufficientFunds = &Error{Code: CodeInsufficientFunds}
	ErrReferenceConflict = &Error{Code: CodeLedgerReferenceConflict}
	ErrAccountNotFound   = &Error{Code: CodeAccountNotFound}
	ErrTransferNotFound  = &Error{Code: CodeTransferNotFound}
	ErrAmountOverflow    = &Error{Code: CodeAmountOverflow}
)

// E builds an error with a code and a formatted message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Retry waits after a transient refusal (Error.RetryAfter, the Retry-After header): the
// database's (a statement or a pool wait that ran out of time, a lost connection) and a chain
// node's or an outside provider's, which recover more slowly.
const (
	RetryDatabase   = 2 * time.Second
	RetryDependency = 5 * time.Second
)

// Transient returns a copy of e marked transient: a client may retry after d (Retry-After).
func (e *Error) Transient(d time.Duration) *Error {
	out := *e
	out.RetryAfter = d
	return &out
}

// RetryAfterOf is the retry wait of err's domain error (Error.RetryAfter), zero when err is
// not a transient refusal.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// WithDetails returns a copy of e with details merged in.
func (e *Error) WithDetails(details map[string]any) *Error {
	out := &Error{Code: e.Code, Message: e.Message, Details: map[string]any{}, RetryAfter: e.RetryAfter}
	for k, v := range e.Details {
		out.Details[k] = v
	}
	for k, v := range details {
		out.Details[k] = v
	}
	return out
}

// NotFound is the 404 for a resource that does not exist in the caller's tenant and
// environment. Another tenant's object answers exactly the same way.
func NotFound(code Code, resource string) *Error {
	return &Error{Code: code, Message: resource + " not found"}
}

// FieldErrors collects validation problems keyed by field path (for example "owners[0].address").
type FieldErrors map[string]string

// Add records why a field is invalid; the first reason for a field wins.
func (f FieldErrors) Add(field, reason string) {
	if _, ok := f[field]; !ok {
		f[field] = reason
	}
}

// Merge copies the fields of a VALIDATION_FAILED error into f; any other error is recorded
// against the body. It lets a use case collect one validator's findings with its own.
func (f FieldErrors) Merge(err error) {
	if err == nil {
		return
	}
	if e, ok := err.(*Error); ok && e.Code == CodeValidationFailed {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			for k, v := range fields {
				reason, _ := v.(string)
				f.Add(k, reason)
			}
			return
		}
	}
	f.Add("body", err.Error())
}

// Err returns nil when there are no problems, else a VALIDATION_FAILED error naming every field.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	names := make([]string, 0, len(f))
	for k := range f {
		names = append(names, k)
	}
	sort.Strings(names)
	fields := make(map[string]any, len(f))
	for k, v := range f {
		fields[k] = v
	}
	return &Error{
		Code:    CodeValidationFailed,
		Message: "invalid request: " + strings.Join(names, ", "),
		Details: map[string]any{"fields": fields},
	}
}

// Invalid is a shorthand for a single-field validation failure.
func Invalid(field, reason string) error {
	f := FieldErrors{}
	f.Add(field, reason)
	return f.Err()
}
