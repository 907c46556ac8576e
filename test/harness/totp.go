package harness

import (
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// usedSteps remembers, per secret, the TOTP time step of the last code TOTP handed out.
var usedSteps sync.Map

// TOTP is a code of secret (an enrolled factor's secret) that the service accepts now. The
// service accepts each code once, so every call answers a later time step than the last one for
// that secret: the earliest within the service's one-step skew, waiting for the clock when all
// three are used.
func TOTP(t testing.TB, secret string) string {
	t.Helper()
	for {
		current := time.Now().Unix() / 30
		step := current - 1
		if last, ok := usedSteps.Load(secret); ok && last.(int64) >= step {
			step = last.(int64) + 1
		}
		if step <= current+1 {
			usedSteps.Store(secret, step)
			c, err := totp.GenerateCodeCustom(secret, time.Unix(step*30, 0), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		time.Sleep(time.Second)
	}
}
