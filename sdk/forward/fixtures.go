package forward

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// fixture creates, through the public API and only the use cases a partner calls, a TEST object
// of one family for `corridor trigger` (as `stripe trigger` creates its objects), and returns
// its id. Trigger runs one only when the service answers that the caller has no object of the
// family yet, so a tenant's objects are reused and a fresh tenant gets one per family. The
// object's own events are recorded and forwarded too, as they would be in production.
type fixture func(context.Context, *corridor.ClientWithResponses) (string, error)

// fixtures holds one builder per event family; docs/webhooks.md's trigger table says what each
// makes and which state it reaches. twofactor.locked needs none: it is about the tenant.
var fixtures = map[string]fixture{
	"agent":              agentFixture,
	"card":               cardFixture,
	"card_authorization": authorizationFixture,
	"safe_payment":       safePaymentFixture,
	"offramp_payment":    offrampPaymentFixture,
	"claim":              claimFixture,
	"invoice":            invoiceFixture,
	"treasury_sweep":     sweepFixture,
	"payment":            checkoutFixture,
	"refund":             refundFixture,
	"webhook_endpoint":   endpointFixture,
	"member":             memberFixture,
}

// fixtureAddress is the crypto account a fixture card names: no key for it exists.
const fixtureAddress = "0x00000000000000000000000000000000000000aa"

// fixtureWait bounds how long a fixture waits for the service's background work: a Safe's
// deployment, a checkout's confirmations, a refund sent on chain.
const fixtureWait = 3 * time.Minute

// fixtureName names every object a fixture makes, so a partner can tell them apart.
const fixtureName = "corridor trigger fixture"

func agentFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	resp, err := api.CreateAgentWithResponse(ctx, &corridor.CreateAgentParams{}, corridor.AgentCreateRequest{Name: fixtureName})
	var out struct{ ID string }
	return out.ID, decode("POST /v1/agents", resp, err, &out)
}

// cardFixture issues a card to a new sandbox cardholder.
func cardFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	holder, err := api.CreateCardholderWithResponse(ctx, &corridor.CreateCardholderParams{},
		corridor.CardholderRequest{Name: "Trigger Fixture", Email: "trigger-fixture@example.com"})
	var h struct{ CardholderID string }
	if err := decode("POST /v1/cardholders", holder, err, &h); err != nil {
		return "", err
	}
	chain, address := corridor.CardholderCardRequestChainBase, fixtureAddress
	card, err := api.CreateCardWithResponse(ctx, &corridor.CreateCardParams{},
		corridor.CardholderCardRequest{CardholderId: h.CardholderID, Chain: &chain, CryptoAccountAddress: &address})
	var c struct{ CardID string }
	return c.CardID, decode("POST /v1/cards", card, err, &c)
}

// authorizationFixture asks the sandbox issuer for an authorization on a fixture card.
func authorizationFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	cardID, err := cardFixture(ctx, api)
	if err != nil {
		return "", err
	}
	resp, err := api.SandboxCreateCardAuthorizationWithResponse(ctx, cardID, &corridor.SandboxCreateCardAuthorizationParams{},
		corridor.CardAuthorizationRequest{AmountUsd: "1.00", Mcc: "5814", MerchantName: "Trigger Fixture Coffee"})
	var a struct{ AuthorizationID string }
	return a.AuthorizationID, decode("POST /v1/sandbox/cards/{id}/authorizations", resp, err, &a)
}

// response is what every generated response answers: its status and body.
type response interface {
	StatusCode() int
	GetBody() []byte
}

// decode reads a 2xx answer's JSON into out (field names match case-insensitively), or says
// what the route answered instead.
func decode[R response](route string, r R, err error, out any) error {
	if err != nil {
		return fmt.Errorf("%s: %w", route, err)
	}
	if r.StatusCode()/100 != 2 {
		return answered(route, r.StatusCode(), r.GetBody())
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.GetBody(), out); err != nil {
		return fmt.Errorf("%s: %w", route, err)
	}
	return nil
}

// body is v as a JSON request body, for the routes whose generated body type is a union.
func body(v any) io.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings and numbers are passed
	}
	return bytes.NewReader(b)
}

const jsonType = "application/json"

// await polls done until it holds, fails, or fixtureWait passes.
func await(ctx context.Context, what string, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, fixtureWait)
	defer cancel()
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("corridor trigger waited for %s: %w", what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// newAddress is a fresh address nobody holds a key for: a fixture's payee, owner or refund
// destination, so nothing real is ever paid.
func newAddress() string {
	b := make([]byte, common.AddressLength)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return common.BytesToAddress(b).Hex()
}

// newPhone is a sandbox phone number nobody verified, so a payment to it opens a claim.
func newPhone() string {
	n, err := rand.Int(rand.Reader, big.NewInt(7_000_000))
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("+1628%07d", 2_000_000+n.Int64())
}

func answered(route string, status int, body []byte) error {
	return fmt.Errorf("%s answered %d: %s", route, status, bytes.TrimSpace(body))
}

// endpointFixture registers a disabled endpoint at example.com (a name reserved for examples,
// and a public host, so a deployment that refuses internal receivers accepts it):
// webhook_endpoint.disabled is then about an endpoint that is disabled, and nothing is ever
// delivered to it.
func endpointFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	enabled := false
	resp, err := api.CreateWebhookEndpointWithResponse(ctx, &corridor.CreateWebhookEndpointParams{},
		corridor.WebhookEndpointRequest{Url: "https://example.com/corridor-trigger-fixture", Enabled: &enabled})
	var ep struct{ ID string }
	return ep.ID, decode("POST /v1/webhook-endpoints", resp, err, &ep)
}

// memberFixture invites a MEMBER at a fresh example.com address; the invite is never accepted.
func memberFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	role := corridor.MemberInviteRequestRole("MEMBER")
	resp, err := api.InviteMemberWithResponse(ctx, &corridor.InviteMemberParams{},
		corridor.MemberInviteRequest{Email: "trigger-fixture-" + newAddress()[2:10] + "@example.com", Role: &role})
	var m struct{ ID string }
	return m.ID, decode("POST /v1/tenants/members", resp, err, &m)
}
