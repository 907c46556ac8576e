// Command offramp pays a phone number through the generated Go client, from both sides: the
// recipient (CORRIDOR_RECIPIENT_API_KEY, another tenant) proves its phone by the SMS code the
// sandbox outbox holds and adds a service-balance payout destination; the sender
// (CORRIDOR_API_KEY) funds its sandbox service balance and pays the phone; the recipient picks
// a quoted route and confirms; the payment is delivered.
//
//	CORRIDOR_API_KEY=csk_test_… CORRIDOR_RECIPIENT_API_KEY=csk_test_… go run ./examples/offramp
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"regexp"
	"time"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// waitLimit bounds the wait for the payout.
const waitLimit = time.Minute

var smsCode = regexp.MustCompile(`\b(\d{6})\b`)

func main() {
	sender, err := client("CORRIDOR_API_KEY")
	if err != nil {
		log.Fatal(err)
	}
	recipient, err := client("CORRIDOR_RECIPIENT_API_KEY")
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), sender, recipient); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, sender, recipient *corridor.ClientWithResponses) error {
	phone, err := randomPhone()
	if err != nil {
		return err
	}
	if err := onboard(ctx, recipient, phone); err != nil {
		return err
	}
	deposit, err := sender.SandboxCreateBalanceDepositWithResponse(ctx, &corridor.SandboxCreateBalanceDepositParams{}, corridor.DepositRequest{AmountUsd: "50"})
	if err != nil || deposit.JSON201 == nil {
		return fmt.Errorf("deposit: %v %s", err, deposit.Body)
	}
	created, err := sender.CreateOfframpPaymentWithResponse(ctx, &corridor.CreateOfframpPaymentParams{}, corridor.OfframpPaymentCreateRequest{Phone: phone, AmountUsd: "12.5"})
	if err != nil || created.JSON201 == nil {
		return fmt.Errorf("pay the phone: %v %s", err, created.Body)
	}
	id := created.JSON201.PaymentId
	fmt.Printf("payment %s to %s: %s\n", id, phone, created.JSON201.Status)

	routes, err := recipient.ListOfframpPaymentRoutesWithResponse(ctx, id)
	if err != nil || routes.JSON200 == nil || len(routes.JSON200.Routes) == 0 {
		return fmt.Errorf("routes: %v %s", err, routes.Body)
	}
	route := routes.JSON200.Routes[0]
	if r, err := recipient.SelectOfframpPaymentRouteWithResponse(ctx, id, &corridor.SelectOfframpPaymentRouteParams{},
		corridor.PayoutRouteSelectRequest{RouteQuoteId: route.RouteId}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("select: %v %s", err, r.Body)
	}
	if r, err := recipient.ConfirmOfframpPaymentWithResponse(ctx, id, &corridor.ConfirmOfframpPaymentParams{}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("confirm: %v %s", err, r.Body)
	}
	deadline := time.Now().Add(waitLimit)
	for {
		read, err := sender.GetOfframpPaymentWithResponse(ctx, id)
		if err != nil || read.JSON200 == nil {
			return fmt.Errorf("read: %v", err)
		}
		switch read.JSON200.Status {
		case "DELIVERED":
			fmt.Printf("payment %s DELIVERED through %s to destination %s\n", id, route.Provider, route.DestinationId)
			return nil
		case "FAILED", "REFUNDED", "CANCELED":
			return fmt.Errorf("the payment ended %s", read.JSON200.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the payment is still %s", read.JSON200.Status)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// onboard makes the recipient able to receive: a verified business credential (set in the
// sandbox), the phone proven by its SMS code, and a payout destination.
func onboard(ctx context.Context, recipient *corridor.ClientWithResponses, phone string) error {
	if r, err := recipient.SandboxSetCredentialWithResponse(ctx, &corridor.SandboxSetCredentialParams{},
		corridor.CredentialSetRequest{Status: corridor.CredentialSetRequestStatusACTIVE}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("credential: %v %s", err, r.Body)
	}
	alias, err := recipient.CreatePhoneAliasWithResponse(ctx, &corridor.CreatePhoneAliasParams{}, corridor.PhoneAliasCreateRequest{Phone: phone})
	if err != nil || alias.JSON201 == nil {
		return fmt.Errorf("phone alias: %v %s", err, alias.Body)
	}
	body, err := lastSMS(ctx, recipient)
	if err != nil {
		return err
	}
	code := smsCode.FindStringSubmatch(body)
	if code == nil {
		return fmt.Errorf("no code in %q", body)
	}
	if r, err := recipient.VerifyPhoneAliasWithResponse(ctx, alias.JSON201.Id, &corridor.VerifyPhoneAliasParams{},
		corridor.PhoneAliasVerifyRequest{Code: code[1]}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("verify: %v %s", err, r.Body)
	}
	if r, err := recipient.CreatePayoutDestinationWithResponse(ctx, &corridor.CreatePayoutDestinationParams{},
		corridor.DestinationCreateRequest{Type: "SERVICE_BALANCE"}); err != nil || r.JSON201 == nil {
		return fmt.Errorf("destination: %v %s", err, r.Body)
	}
	return nil
}

// lastSMS waits for the newest text of the sandbox outbox: texts are sent by a job after the
// request that asks for them commits, so the code arrives a moment later, as a real SMS does.
func lastSMS(ctx context.Context, recipient *corridor.ClientWithResponses) (string, error) {
	take := 1
	deadline := time.Now().Add(waitLimit)
	for {
		sms, err := recipient.SandboxListSmsMessagesWithResponse(ctx, &corridor.SandboxListSmsMessagesParams{Take: &take})
		if err != nil || sms.JSON200 == nil {
			return "", fmt.Errorf("the sandbox SMS outbox: %v", err)
		}
		if len(sms.JSON200.Messages) > 0 {
			return sms.JSON200.Messages[0].Body, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no SMS arrived in the sandbox outbox")
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// randomPhone is a fresh US number: one tenant per number, so every run needs its own. Its
// exchange (the 4th to 6th digits) starts with 2 to 9, or it is not a valid NANP number.
func randomPhone() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(7_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("+1415%07d", 2_000_000+n.Int64()), nil
}

// client is the generated client for CORRIDOR_URL with the key in the variable keyVar.
func client(keyVar string) (*corridor.ClientWithResponses, error) {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv(keyVar)
	if base == "" {
		base = "http://localhost:8080"
	}
	if key == "" {
		return nil, fmt.Errorf("set %s to a TEST key", keyVar)
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
