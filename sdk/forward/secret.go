package forward

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/corridorhq/corridor/core/webhook"
)

// SecretStore keeps `corridor listen`'s signing secret on this machine, one per service and
// tenant, so a partner's verifier configured with it keeps working across restarts (a secret
// that changed on every start had to be pasted again each time). The file is readable by its
// owner only; rotating replaces it.
type SecretStore struct {
	// Dir holds one file per service and tenant.
	Dir string
}

// DefaultSecretDir is where the CLI keeps the secrets: CORRIDOR_CONFIG_DIR when set, else
// corridor/listen under the user's configuration directory (~/.config on Linux).
func DefaultSecretDir() (string, error) {
	if dir := os.Getenv("CORRIDOR_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "listen"), nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("forward: no configuration directory for the listen secret (set CORRIDOR_CONFIG_DIR): %w", err)
	}
	return filepath.Join(base, "corridor", "listen"), nil
}

// storedSecret is one file's content: what it belongs to, for a person reading it.
type storedSecret struct {
	API      string `json:"api"`
	TenantID string `json:"tenantId"`
	Secret   string `json:"secret"`
}

// path names the file of a service and tenant: a hash, so no URL character reaches the name.
func (s SecretStore) path(api, tenantID string) string {
	sum := sha256.Sum256([]byte(strings.TrimRight(api, "/") + "\n" + tenantID))
	return filepath.Join(s.Dir, tenantID+"-"+hex.EncodeToString(sum[:6])+".json")
}

// Secret returns the stored secret of api and tenantID, making and storing one when there is
// none or when rotate is set; created says a new one was made.
func (s SecretStore) Secret(api, tenantID string, rotate bool) (secret string, created bool, err error) {
	if s.Dir == "" || tenantID == "" {
		return "", false, errors.New("forward: a directory and a tenant are required for the listen secret")
	}
	p := s.path(api, tenantID)
	if !rotate {
		b, err := os.ReadFile(p) //nolint:gosec // p is the store's own file, named from a hash under the user's config directory
		switch {
		case err == nil:
			var st storedSecret
			if err := json.Unmarshal(b, &st); err != nil || !strings.HasPrefix(st.Secret, webhook.SecretPrefix) {
				return "", false, fmt.Errorf("forward: %s is not a listen secret file (remove it, or pass --rotate-secret)", p)
			}
			return st.Secret, false, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", false, fmt.Errorf("forward: read the listen secret: %w", err)
		}
	}
	st := storedSecret{API: strings.TrimRight(api, "/"), TenantID: tenantID, Secret: webhook.NewSecret()}
	b, err := json.MarshalIndent(st, "", "  ") //nolint:gosec // the secret is what this file keeps, written 0600 for its owner
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", false, fmt.Errorf("forward: store the listen secret: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", false, fmt.Errorf("forward: store the listen secret: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", false, fmt.Errorf("forward: store the listen secret: %w", err)
	}
	return st.Secret, true, nil
}
