package forward

import (
	"bytes"
	"context"
	"fmt"

	"github.com/corridorhq/corridor/sdk/go/corridor"
)

// fixtures create, through the public API, a fresh object of a family for `corridor trigger`
// (as `stripe trigger` creates its objects), returning its id. Only families whose objects need
// neither a funded wallet nor a chain have one; the object's own creation event is recorded and
// forwarded too, as it would be in production.
var fixtures = map[string]func(context.Context, *corridor.ClientWithResponses) (string, error){
	"agent":              agentFixture,
	"card":               cardFixture,
	"card_authorization": authorizationFixture,
}

// fixtureAddress is the crypto account a fixture card names: no key for it exists.
const fixtureAddress = "0x00000000000000000000000000000000000000aa"

func agentFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	resp, err := api.CreateAgentWithResponse(ctx, &corridor.CreateAgentParams{}, corridor.AgentCreateRequest{Name: "corridor trigger fixture"})
	if err != nil {
		return "", err
	}
	if resp.JSON201 == nil {
		return "", answered("POST /v1/agents", resp.StatusCode(), resp.Body)
	}
	return resp.JSON201.Id, nil
}

// cardFixture issues a card to a new sandbox cardholder.
func cardFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	holder, err := api.CreateCardholderWithResponse(ctx, &corridor.CreateCardholderParams{},
		corridor.CardholderRequest{Name: "Trigger Fixture", Email: "trigger-fixture@example.com"})
	if err != nil {
		return "", err
	}
	if holder.JSON201 == nil {
		return "", answered("POST /v1/cardholders", holder.StatusCode(), holder.Body)
	}
	chain, address := corridor.CardholderCardRequestChainBase, fixtureAddress
	card, err := api.CreateCardWithResponse(ctx, &corridor.CreateCardParams{},
		corridor.CardholderCardRequest{CardholderId: holder.JSON201.CardholderId, Chain: &chain, CryptoAccountAddress: &address})
	if err != nil {
		return "", err
	}
	if card.JSON201 == nil {
		return "", answered("POST /v1/cards", card.StatusCode(), card.Body)
	}
	return card.JSON201.CardId, nil
}

// authorizationFixture asks the sandbox issuer for an authorization on a fixture card.
func authorizationFixture(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	cardID, err := cardFixture(ctx, api)
	if err != nil {
		return "", err
	}
	resp, err := api.SandboxCreateCardAuthorizationWithResponse(ctx, cardID, &corridor.SandboxCreateCardAuthorizationParams{},
		corridor.CardAuthorizationRequest{AmountUsd: "1.00", Mcc: "5814", MerchantName: "Trigger Fixture Coffee"})
	if err != nil {
		return "", err
	}
	if resp.JSON201 == nil {
		return "", answered("POST /v1/sandbox/cards/{id}/authorizations", resp.StatusCode(), resp.Body)
	}
	return resp.JSON201.AuthorizationId, nil
}

func answered(route string, status int, body []byte) error {
	return fmt.Errorf("%s answered %d: %s", route, status, bytes.TrimSpace(body))
}
