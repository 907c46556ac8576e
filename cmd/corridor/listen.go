package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/corridorhq/corridor/sdk/forward"
	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// defaultAPI is where `make run` serves.
const defaultAPI = "http://localhost:8080"

// devFlags are the flags listen and trigger share: where the service is and who calls it
// (CORRIDOR_API_KEY, or CORRIDOR_SESSION for a session token).
func devFlags(name string) (*flag.FlagSet, *string, *string) {
	fs := flag.NewFlagSet("corridor "+name, flag.ContinueOnError)
	api := fs.String("api", envOr("CORRIDOR_URL", defaultAPI), "the service's base URL (CORRIDOR_URL)")
	key := fs.String("api-key", os.Getenv("CORRIDOR_API_KEY"), "a TEST API key holding keys:manage (CORRIDOR_API_KEY)")
	return fs, api, key
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// listenCmd forwards the caller's events to a local URL until interrupted (forward.Listener),
// signed with the secret this machine keeps for the tenant (forward.SecretStore); --resend
// forwards one past event and returns.
func listenCmd(ctx context.Context, out io.Writer, args []string) error {
	fs, api, key := devFlags("listen")
	forwardTo := fs.String("forward-to", "", "the local URL each event is POSTed to, signed (required unless --print-secret)")
	interval := fs.Duration("interval", time.Second, "how often GET /v1/events is read")
	events := fs.String("events", "", "comma-separated event types or families (card_authorization.*) to forward; empty: every type")
	rotate := fs.Bool("rotate-secret", false, "replace this machine's signing secret for the tenant with a new one")
	printSecret := fs.Bool("print-secret", false, "print the signing secret and exit")
	resend := fs.String("resend", "", "forward this past event (evt_…) once and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *forwardTo == "" && !*printSecret {
		return fmt.Errorf("corridor listen: --forward-to URL is required")
	}
	client, err := forward.NewAPI(*api, *key, os.Getenv("CORRIDOR_SESSION"))
	if err != nil {
		return err
	}
	secret, err := listenSecret(ctx, out, client, *api, *rotate)
	if err != nil {
		return err
	}
	if *printSecret {
		_, err = fmt.Fprintln(out, secret)
		return err
	}
	l, err := forward.NewListener(forward.Options{API: client, ForwardTo: *forwardTo, Interval: *interval, Out: out,
		Secret: secret, Events: splitList(*events)})
	if err != nil {
		return err
	}
	if *resend != "" {
		_, err = l.Resend(ctx, *resend)
		return err
	}
	return l.Run(ctx)
}

// listenSecret is the secret this machine keeps for the credential's tenant on api.
func listenSecret(ctx context.Context, out io.Writer, client *corridor.ClientWithResponses, api string, rotate bool) (string, error) {
	tenantID, err := forward.TenantID(ctx, client)
	if err != nil {
		return "", err
	}
	dir, err := forward.DefaultSecretDir()
	if err != nil {
		return "", err
	}
	secret, created, err := forward.SecretStore{Dir: dir}.Secret(api, tenantID, rotate)
	if err == nil && created && rotate {
		fmt.Fprintln(out, "Rotated: a new signing secret replaces the old one; update your verifier.")
	}
	return secret, err
}

// splitList is a comma-separated flag's entries, trimmed, without empty ones.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// triggerCmd makes the sandbox emit one event of the type named (forward.Trigger), about the
// caller's newest object of the family or one it makes first, and prints which object.
func triggerCmd(ctx context.Context, out io.Writer, args []string) error {
	fs, api, key := devFlags("trigger")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return fmt.Errorf("corridor trigger: name one event type, e.g. corridor trigger safe_payment.completed")
	}
	client, err := forward.NewAPI(*api, *key, os.Getenv("CORRIDOR_SESSION"))
	if err != nil {
		return err
	}
	e, err := forward.Trigger(ctx, client, positional[0])
	if err != nil {
		return err
	}
	about, _ := e.Data["id"].(string)
	_, err = fmt.Fprintf(out, "triggered %s %s about %s\n", e.Type, e.Id, about)
	return err
}
