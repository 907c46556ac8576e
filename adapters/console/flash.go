package console

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
)

// flashCookie carries a secret shown once (a new key's plaintext, an endpoint's signing secret)
// across the redirect that follows the POST, so a reload neither repeats the POST nor shows the
// secret again: the page that shows it clears the cookie. It is sealed with AES-GCM under a key
// derived from the cookie key, HttpOnly, SameSite=Strict and lives a minute at most.
const (
	flashCookie   = "corridor_console_once"
	flashLifetime = time.Minute
)

// flash is what the cookie carries.
type flash struct {
	Kind   string `json:"k"` // the page it is for: "key", "endpoint" or "webhook"
	ID     string `json:"i"`
	Label  string `json:"l"`
	Secret string `json:"s"`
	Notice string `json:"n"`
	Nonce  string `json:"o"` // the session's nonce: another session cannot read it
	Until  int64  `json:"u"`
}

func (k *Console) setFlash(c *fiber.Ctx, f flash) {
	f.Nonce, _ = c.Locals(localNonce).(string)
	f.Until = time.Now().Add(flashLifetime).Unix()
	raw, _ := json.Marshal(f) //nolint:gosec // sealed with AES-GCM below; the secret is the one this response shows once
	g := k.seal.aead("flash")
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	sealed := g.Seal(nonce, nonce, raw, []byte(flashCookie))
	setCookie(c, flashCookie, base64.RawURLEncoding.EncodeToString(sealed), flashLifetime)
}

// takeFlash returns the flash of kind meant for this session and page, and clears the cookie.
func (k *Console) takeFlash(c *fiber.Ctx, kind string) (flash, bool) {
	v := c.Cookies(flashCookie)
	if v == "" {
		return flash{}, false
	}
	clearCookie(c, flashCookie)
	f, err := k.openFlash(v)
	nonce, _ := c.Locals(localNonce).(string)
	if err != nil || f.Kind != kind || f.Nonce != nonce || time.Now().Unix() > f.Until {
		return flash{}, false
	}
	return f, true
}

func (k *Console) openFlash(v string) (flash, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(v)
	g := k.seal.aead("flash")
	if err != nil || len(sealed) < g.NonceSize() {
		return flash{}, errors.New("malformed flash")
	}
	raw, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], []byte(flashCookie))
	if err != nil {
		return flash{}, err
	}
	var f flash
	return f, json.Unmarshal(raw, &f)
}

// takeSecretFlash is takeFlash for pages that show a secret once (a key, an endpoint's signing
// secret, an invite token): the flash's notice, and the flash itself only when it carries one.
func (k *Console) takeSecretFlash(c *fiber.Ctx, kind string) (notice string, shown *flash) {
	f, ok := k.takeFlash(c, kind)
	if !ok {
		return "", nil
	}
	if f.Secret != "" {
		shown = &f
	}
	return f.Notice, shown
}
