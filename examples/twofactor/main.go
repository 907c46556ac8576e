// Command twofactor protects payments with a second factor through the generated Go client:
// payments above 10 USD are set to need approval, a TOTP factor is enrolled and activated with
// a code from its secret (what an authenticator app would show), a payment of 25.5 USD is
// refused 403 TWOFA_REQUIRED with a challenge, the challenge is approved with a fresh code, and
// the same payment sent again with the challenge's id is created.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/twofactor
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// waitLimit bounds every wait for the chain.
const waitLimit = 2 * time.Minute

func main() {
	api, err := client()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), api); err != nil {
		log.Fatal(err)
	}
}

// run is the walkthrough, step by step.
// long: an example reads top to bottom as one story, the way a partner follows it.
func run(ctx context.Context, api *corridor.ClientWithResponses) error {
	w, err := deployedWallet(ctx, api)
	if err != nil {
		return err
	}
	// Before a factor is active the settings change without a challenge; afterwards a change
	// needs one too.
	above := "10"
	settings, err := api.UpdateTwoFactorSettingsWithResponse(ctx, corridor.TwoFactorSettingsRequest{ApprovalAboveUsd: &above})
	if err != nil || settings.JSON200 == nil {
		return fmt.Errorf("settings: %v %s", err, settings.Body)
	}
	fmt.Printf("settings: approval above %s USD\n", *settings.JSON200.ApprovalAboveUsd)

	label := "ops phone"
	enrolled, err := api.EnrollTwoFactorFactorWithResponse(ctx, &corridor.EnrollTwoFactorFactorParams{}, corridor.FactorCreateRequest{Label: &label})
	if err != nil || enrolled.JSON201 == nil || enrolled.JSON201.Secret == nil {
		return fmt.Errorf("enroll: %v %s", err, enrolled.Body)
	}
	// The secret (and otpauthUri, for a QR code) is shown once, at enrolment.
	codes := &authenticator{secret: *enrolled.JSON201.Secret}
	first, err := codes.next()
	if err != nil {
		return err
	}
	factor, err := api.VerifyTwoFactorFactorWithResponse(ctx, enrolled.JSON201.Id, &corridor.VerifyTwoFactorFactorParams{}, corridor.FactorVerifyRequest{Code: first})
	if err != nil || factor.JSON200 == nil {
		return fmt.Errorf("verify factor: %v %s", err, factor.Body)
	}
	fmt.Printf("factor %s %q %s\n", factor.JSON200.Id, factor.JSON200.Label, factor.JSON200.Status)

	to, err := address()
	if err != nil {
		return err
	}
	pay, err := corridor.SafePaymentBody(w.Id,
		corridor.SafePaymentDestinationRequest{Type: corridor.SafePaymentDestinationRequestTypeAddress, Address: &to, ChainId: &w.ChainId},
		corridor.SafePaymentAmountRequest{Value: "25.5"})
	if err != nil {
		return err
	}
	refused, err := propose(ctx, api, pay)
	if err != nil {
		return err
	}
	if refused.JSON403 == nil {
		return fmt.Errorf("a payment above the threshold was not refused: %s", refused.Body)
	}
	e, err := refused.JSON403.AsErrorEnvelope403()
	if err != nil || e.Code != corridor.ErrorEnvelope403CodeTWOFAREQUIRED || e.Details == nil {
		return fmt.Errorf("refusal: %v %s", err, refused.Body)
	}
	challengeID, _ := (*e.Details)["challengeId"].(string)
	fmt.Printf("payment of 25.5 USD: %s, challenge %s\n", e.Code, challengeID)

	code, err := codes.next()
	if err != nil {
		return err
	}
	ch, err := api.VerifyTwoFactorChallengeWithResponse(ctx, challengeID, &corridor.VerifyTwoFactorChallengeParams{}, corridor.CodeRequest{Code: code})
	if err != nil || ch.JSON200 == nil {
		return fmt.Errorf("verify challenge: %v %s", err, ch.Body)
	}
	fmt.Printf("challenge %s %s for %s USD to %s\n", ch.JSON200.Id, ch.JSON200.Status, ch.JSON200.Transaction.AmountUsd, to)

	// The same payment again, naming the satisfied challenge.
	pay.TwofaChallengeId = &challengeID
	approved, err := propose(ctx, api, pay)
	if err != nil {
		return err
	}
	if approved.JSON201 == nil {
		return fmt.Errorf("the approved payment: %s", approved.Body)
	}
	p, err := approved.JSON201.AsSafePayment()
	if err != nil {
		return err
	}
	fmt.Printf("payment %s of %s USD %s\n", p.Id, p.Amount, p.Status)
	return nil
}

// propose sends a payment request; a refusal is an answer here, not an error.
func propose(ctx context.Context, api *corridor.ClientWithResponses, body corridor.CreatePaymentBody) (*corridor.CreatePaymentResponse, error) {
	return api.CreatePaymentWithResponse(ctx, &corridor.CreatePaymentParams{}, body)
}

// authenticator stands in for an authenticator app: it computes the factor's TOTP codes (RFC
// 6238: SHA-1, 6 digits, 30 s). The service accepts each time step's code once and the steps
// next to the current one, so every call returns the code of a later step than the last.
type authenticator struct {
	secret string
	last   int64
}

func (a *authenticator) next() (string, error) {
	for {
		current := time.Now().Unix() / 30
		step := max(current-1, a.last+1)
		if step <= current+1 {
			a.last = step
			return totp.GenerateCodeCustom(a.secret, time.Unix(step*30, 0),
				totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		}
		time.Sleep(time.Second)
	}
}

// deployedWallet creates a 1-of-1 wallet and waits for its deployment.
func deployedWallet(ctx context.Context, api *corridor.ClientWithResponses) (corridor.WalletDetail, error) {
	owner, err := crypto.GenerateKey()
	if err != nil {
		return corridor.WalletDetail{}, err
	}
	threshold := 1
	var body corridor.CreateWalletBody
	if err := body.FromWalletCreateRequest(corridor.WalletCreateRequest{Name: "protected wallet", Threshold: &threshold,
		Owners: []corridor.WalletOwnerRequest{{Address: crypto.PubkeyToAddress(owner.PublicKey).Hex(), Role: corridor.WalletOwnerRequestRoleADMINOWNER}}}); err != nil {
		return corridor.WalletDetail{}, err
	}
	created, err := api.CreateWalletWithResponse(ctx, &corridor.CreateWalletParams{}, body)
	if err != nil || created.JSON201 == nil {
		return corridor.WalletDetail{}, fmt.Errorf("create wallet: %v %s", err, created.Body)
	}
	w, err := created.JSON201.AsWallet()
	if err != nil {
		return corridor.WalletDetail{}, err
	}
	var detail corridor.WalletDetail
	err = waitFor(func() (bool, error) {
		read, err := api.GetWalletWithResponse(ctx, w.Id)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read wallet: %v", err)
		}
		detail = *read.JSON200
		if detail.Status == corridor.WalletDetailStatusFAILED {
			return false, fmt.Errorf("the wallet failed to deploy")
		}
		return detail.Status == corridor.WalletDetailStatusDEPLOYED, nil
	})
	return detail, err
}

// address is a fresh Ethereum address to pay.
func address() (string, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return "", err
	}
	return crypto.PubkeyToAddress(k.PublicKey).Hex(), nil
}

// waitFor polls done every half second until it holds or fails, for at most waitLimit.
func waitFor(done func() (bool, error)) error {
	deadline := time.Now().Add(waitLimit)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up waiting after %s", waitLimit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// client is the generated client for CORRIDOR_URL with CORRIDOR_API_KEY.
func client() (*corridor.ClientWithResponses, error) {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv("CORRIDOR_API_KEY")
	if base == "" {
		base = "http://localhost:8080"
	}
	if key == "" {
		return nil, fmt.Errorf("set CORRIDOR_API_KEY to a TEST key")
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
