// Command claims pays a phone number nobody has proven yet, through the generated Go client: the
// sender (CORRIDOR_API_KEY) funds its sandbox service balance and pays a fresh number, which
// opens a pending claim funded into escrow and texts a claim link; whoever holds the phone reads
// the link's public view and proves the phone by the texted code (no key: the link's token
// authorizes); the recipient (CORRIDOR_RECIPIENT_API_KEY, another tenant) adds a payout
// destination, redeems the claim, picks a quoted route and confirms; the payment is delivered.
// In the sandbox the texts are read from the sender's sandbox SMS outbox.
//
//	CORRIDOR_API_KEY=csk_test_… CORRIDOR_RECIPIENT_API_KEY=csk_test_… go run ./examples/claims
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

// waitLimit bounds every wait.
const waitLimit = 2 * time.Minute

var (
	claimLink = regexp.MustCompile(`/c/([A-Za-z0-9_-]{43})\b`)
	smsCode   = regexp.MustCompile(`\b(\d{6})\b`)
)

func main() {
	sender, err := client("CORRIDOR_API_KEY")
	if err != nil {
		log.Fatal(err)
	}
	recipient, err := client("CORRIDOR_RECIPIENT_API_KEY")
	if err != nil {
		log.Fatal(err)
	}
	public, err := client("")
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), sender, recipient, public); err != nil {
		log.Fatal(err)
	}
}

// run is the walkthrough, step by step.
// long: an example reads top to bottom as one story, the way a partner follows it.
func run(ctx context.Context, sender, recipient, public *corridor.ClientWithResponses) error {
	phone, err := randomPhone()
	if err != nil {
		return err
	}
	deposit, err := sender.SandboxCreateBalanceDepositWithResponse(ctx, &corridor.SandboxCreateBalanceDepositParams{}, corridor.DepositRequest{AmountUsd: "50"})
	if err != nil || deposit.JSON201 == nil {
		return fmt.Errorf("deposit: %v %s", err, deposit.Body)
	}
	created, err := sender.CreateOfframpPaymentWithResponse(ctx, &corridor.CreateOfframpPaymentParams{}, corridor.OfframpPaymentCreateRequest{Phone: phone, AmountUsd: "12.5"})
	if err != nil || created.JSON201 == nil || created.JSON201.ClaimId == nil {
		return fmt.Errorf("pay the phone: %v %s", err, created.Body)
	}
	payID, claimID := created.JSON201.PaymentId, *created.JSON201.ClaimId
	fmt.Printf("payment %s to %s: %s, claim %s\n", payID, phone, created.JSON201.Status, claimID)
	if err := waitFor(func() (bool, error) {
		read, err := sender.GetOfframpClaimWithResponse(ctx, claimID)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read claim: %v", err)
		}
		return read.JSON200.Funded, nil
	}); err != nil {
		return err
	}
	fmt.Printf("claim %s funded into escrow\n", claimID)

	// The phone's holder: the link's public view, then the phone proven by a texted code.
	link, err := sms(ctx, sender, "claim_link", claimLink)
	if err != nil {
		return err
	}
	token := link[1]
	view, err := public.GetClaimWithResponse(ctx, token)
	if err != nil || view.JSON200 == nil {
		return fmt.Errorf("public view: %v %s", err, view.Body)
	}
	fmt.Printf("claim link: %s USD to %s, %s\n", view.JSON200.AmountUsd, view.JSON200.PhoneMasked, view.JSON200.Status)
	ch, err := public.SendClaimPhoneCodeWithResponse(ctx, token, &corridor.SendClaimPhoneCodeParams{})
	if err != nil || ch.JSON201 == nil {
		return fmt.Errorf("phone code: %v %s", err, ch.Body)
	}
	code, err := sms(ctx, sender, "claim_phone_code", smsCode)
	if err != nil {
		return err
	}
	verified, err := public.VerifyClaimPhoneCodeWithResponse(ctx, token, &corridor.VerifyClaimPhoneCodeParams{},
		corridor.ClaimCodeVerifyRequest{ChallengeId: ch.JSON201.ChallengeId, Code: code[1]})
	if err != nil || verified.JSON200 == nil || !verified.JSON200.Verified {
		return fmt.Errorf("verify the phone: %v %s", err, verified.Body)
	}

	// The recipient: a verified business credential (set in the sandbox), a destination, redeem.
	if r, err := recipient.SandboxSetCredentialWithResponse(ctx, &corridor.SandboxSetCredentialParams{},
		corridor.CredentialSetRequest{Status: corridor.CredentialSetRequestStatusACTIVE}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("credential: %v %s", err, r.Body)
	}
	dest, err := recipient.CreatePayoutDestinationWithResponse(ctx, &corridor.CreatePayoutDestinationParams{},
		corridor.DestinationCreateRequest{Type: "SERVICE_BALANCE"})
	if err != nil || dest.JSON201 == nil {
		return fmt.Errorf("destination: %v %s", err, dest.Body)
	}
	redeemed, err := recipient.RedeemClaimWithResponse(ctx, token, &corridor.RedeemClaimParams{},
		corridor.ClaimRedeemRequest{ChallengeId: ch.JSON201.ChallengeId, DestinationId: dest.JSON201.Id})
	if err != nil || redeemed.JSON200 == nil || len(redeemed.JSON200.Quotes) == 0 {
		return fmt.Errorf("redeem: %v %s", err, redeemed.Body)
	}
	fmt.Printf("claim redeemed: payment %s %s\n", redeemed.JSON200.PaymentId, redeemed.JSON200.Status)
	route := redeemed.JSON200.Quotes[0]
	if r, err := recipient.SelectOfframpPaymentRouteWithResponse(ctx, payID, &corridor.SelectOfframpPaymentRouteParams{},
		corridor.PayoutRouteSelectRequest{RouteQuoteId: route.RouteId}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("select: %v %s", err, r.Body)
	}
	if r, err := recipient.ConfirmOfframpPaymentWithResponse(ctx, payID, &corridor.ConfirmOfframpPaymentParams{}); err != nil || r.JSON200 == nil {
		return fmt.Errorf("confirm: %v %s", err, r.Body)
	}
	return waitFor(func() (bool, error) {
		read, err := sender.GetOfframpPaymentWithResponse(ctx, payID)
		if err != nil || read.JSON200 == nil {
			return false, fmt.Errorf("read: %v", err)
		}
		switch read.JSON200.Status {
		case "DELIVERED":
			fmt.Printf("payment %s DELIVERED through %s to destination %s\n", payID, route.Provider, route.DestinationId)
			return true, nil
		case "FAILED", "REFUNDED", "CANCELED":
			return false, fmt.Errorf("the payment ended %s", read.JSON200.Status)
		}
		return false, nil
	})
}

// sms waits for a text of purpose in the sandbox outbox and matches it against pattern: texts
// are sent by a job after the request that asks for them commits, so they arrive a moment later.
func sms(ctx context.Context, outbox *corridor.ClientWithResponses, purpose string, pattern *regexp.Regexp) ([]string, error) {
	take := 20
	var match []string
	err := waitFor(func() (bool, error) {
		list, err := outbox.SandboxListSmsMessagesWithResponse(ctx, &corridor.SandboxListSmsMessagesParams{Take: &take})
		if err != nil || list.JSON200 == nil {
			return false, fmt.Errorf("the sandbox SMS outbox: %v", err)
		}
		for _, m := range list.JSON200.Messages {
			if m.Purpose == purpose {
				if match = pattern.FindStringSubmatch(m.Body); match == nil {
					return false, fmt.Errorf("no match in the %s text %q", purpose, m.Body)
				}
				return true, nil
			}
		}
		return false, nil
	})
	return match, err
}

// randomPhone is a fresh US number nobody has proven (its exchange, the 4th to 6th digits,
// starts with 2 to 9: a valid NANP number).
func randomPhone() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(7_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("+1415%07d", 2_000_000+n.Int64()), nil
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

// client is the generated client for CORRIDOR_URL with the key in the variable keyVar, or with
// no key for the claim link's public operations (keyVar empty).
func client(keyVar string) (*corridor.ClientWithResponses, error) {
	base := os.Getenv("CORRIDOR_URL")
	if base == "" {
		base = "http://localhost:8080"
	}
	if keyVar == "" {
		return corridor.NewClientWithResponses(base)
	}
	key := os.Getenv(keyVar)
	if key == "" {
		return nil, fmt.Errorf("set %s to a TEST key", keyVar)
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
