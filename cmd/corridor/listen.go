package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/corridorhq/corridor/sdk/forward"
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

// listenCmd forwards the caller's events to a local URL until interrupted (forward.Listener).
func listenCmd(ctx context.Context, out io.Writer, args []string) error {
	fs, api, key := devFlags("listen")
	forwardTo := fs.String("forward-to", "", "the local URL each event is POSTed to, signed (required)")
	interval := fs.Duration("interval", time.Second, "how often GET /v1/events is read")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *forwardTo == "" {
		return fmt.Errorf("corridor listen: --forward-to URL is required")
	}
	client, err := forward.NewAPI(*api, *key, os.Getenv("CORRIDOR_SESSION"))
	if err != nil {
		return err
	}
	l, err := forward.NewListener(forward.Options{API: client, ForwardTo: *forwardTo, Interval: *interval, Out: out})
	if err != nil {
		return err
	}
	return l.Run(ctx)
}

// triggerCmd makes the sandbox emit one event of the type named (forward.Trigger).
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
	_, err = fmt.Fprintf(out, "triggered %s %s\n", e.Type, e.Id)
	return err
}
