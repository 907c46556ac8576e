package corridor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"
)

func sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"agent.suspended","data":{"note":"é"}}`)
	header := sign("whsec_new", now.Add(-time.Minute), body)
	cases := []struct {
		name    string
		body    []byte
		header  string
		now     time.Time
		secrets []string
		want    error
	}{
		{"signed by the secret", body, header, now, []string{"whsec_new"}, nil},
		{"either secret during a rotation", body, header, now, []string{"whsec_old", "whsec_new"}, nil},
		{"spaces around the parts", body, " t=" + header[2:12] + " , " + header[13:], now, []string{"whsec_new"}, nil},
		{"another secret", body, header, now, []string{"whsec_old"}, ErrWebhookSignature},
		{"no secret", body, header, now, nil, ErrWebhookSignature},
		{"a changed body", append([]byte{' '}, body...), header, now, []string{"whsec_new"}, ErrWebhookSignature},
		{"an old delivery", body, header, now.Add(10 * time.Minute), []string{"whsec_new"}, ErrWebhookTimestamp},
		{"a delivery from the future", body, header, now.Add(-10 * time.Minute), []string{"whsec_new"}, ErrWebhookTimestamp},
		{"no header", body, "", now, []string{"whsec_new"}, ErrWebhookSignature},
		{"no timestamp", body, header[13:], now, []string{"whsec_new"}, ErrWebhookSignature},
		{"a signature that is not hex", body, header[:13] + "v1=zz", now, []string{"whsec_new"}, ErrWebhookSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := VerifyWebhook(c.body, c.header, c.now, c.secrets...); !errors.Is(got, c.want) {
				t.Fatalf("VerifyWebhook = %v, want %v (header %q)", got, c.want, c.header)
			}
		})
	}
}
