package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Contract is the OpenAPI document a running service serves, loaded with kin-openapi. Every
// response a test receives through a Client is checked against it, so a handler that drifts
// from the document fails the test that made the request.
type Contract struct {
	doc      *openapi3.T
	router   routers.Router
	envelope *openapi3.SchemaRef
	// Checked counts the responses checked, so a package can tell the check is active.
	Checked atomic.Int64
}

// Non-JSON bodies the document declares (the hosted payment page, its script, stylesheet and
// QR code) are checked for their status and content type; their bodies are read as text.
func init() {
	for _, ct := range []string{"text/html", "text/javascript", "text/css", "image/png"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// NewContract loads and validates an OpenAPI document.
func NewContract(raw []byte) (*Contract, error) {
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	envelope := doc.Components.Schemas["ErrorEnvelope"]
	if envelope == nil {
		return nil, errors.New("the OpenAPI document has no ErrorEnvelope schema")
	}
	return &Contract{doc: doc, router: router, envelope: envelope}, nil
}

// Check validates one response to method and target (a path with its query): the operation is
// found by method and path; the status must be one the operation names (default does not
// excuse it: every status a test sees is documented explicitly); the content type must be one
// documented for that status and the body must match its schema. A request that matches no
// operation (an unknown path, a wrong method) must answer an error status with the envelope.
func (k *Contract) Check(method, target string, status int, header http.Header, body []byte) error {
	k.Checked.Add(1)
	req, err := http.NewRequest(method, "http://service"+target, nil)
	if err != nil {
		return err
	}
	route, pathParams, err := k.router.FindRoute(req)
	if err != nil {
		if status < 400 {
			return fmt.Errorf("no operation matches (%v), yet the status is %d", err, status)
		}
		return k.checkEnvelope(header, body)
	}
	if route.Operation.Responses.Status(status) == nil {
		return fmt.Errorf("status %d is not documented for %s %s", status, method, route.Path)
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route},
		Status:                 status, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("against %s %s: %w", method, route.Path, err)
	}
	return nil
}

func (k *Contract) checkEnvelope(header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("an error answered with content type %q, not the JSON envelope", ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("an error body is not JSON: %w", err)
	}
	if err := k.envelope.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("an error body is not the ErrorEnvelope: %w", err)
	}
	return nil
}

// Contract returns the document the service serves, fetched and loaded on first use.
func (e *Env) Contract() (*Contract, error) {
	e.contractOnce.Do(func() {
		resp, err := httpClient.Get(e.BaseURL + "/v1/openapi.json")
		if err != nil {
			e.contractErr = err
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			e.contractErr = fmt.Errorf("GET /v1/openapi.json: status %d, %v", resp.StatusCode, err)
			return
		}
		e.contract, e.contractErr = NewContract(raw)
	})
	return e.contract, e.contractErr
}

// checkContract fails t (without stopping it) when a response drifts from the document.
func (e *Env) checkContract(t interface {
	Helper()
	Errorf(string, ...any)
}, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	if method == http.MethodHead {
		return // no body to check
	}
	k, err := e.Contract()
	if err != nil {
		t.Errorf("response contract unavailable: %v", err)
		return
	}
	if err := k.Check(method, target, status, header, body); err != nil {
		t.Errorf("response drifts from the OpenAPI document: %s %s → %s: %v\nbody: %s",
			method, target, strconv.Itoa(status), err, truncate(body, 2000))
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// contractState is the lazily loaded document of an Env.
type contractState struct {
	contractOnce sync.Once
	contract     *Contract
	contractErr  error
}
