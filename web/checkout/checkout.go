// Package checkout holds the hosted payment page (GET /pay/{id}, docs/checkout.md): its HTML
// template, its script and stylesheet (served as files, so the page's Content-Security-Policy
// allows no inline script or style), and the QR code of the payment's EIP-681 URI. The HTTP
// handlers that serve them live in adapters/http; this package knows no HTTP framework.
package checkout

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"math/big"
	"time"

	qrcode "github.com/skip2/go-qrcode"
)

//go:embed page.html assets
var files embed.FS

var page = template.Must(template.ParseFS(files, "page.html"))

// Assets are the page's static files (checkout.js, checkout.css) by name.
func Assets() fs.FS {
	sub, err := fs.Sub(files, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

// ContentSecurityPolicy is the page's policy: only this origin's script, style, images and
// status reads; no inline code, no framing, no forms.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Page is what the payment page shows.
type Page struct {
	ID             string
	Amount         string // "12.50"
	Currency       string // USD
	CryptoAmount   string // "12.500000"
	Cryptocurrency string // USDC
	Description    string
	Merchant       string
	DepositAddress string
	ChainID        int64
	PaymentURI     string
	Status         string // created, pending, completed, failed
	ExpiresAt      time.Time
	Confirmations  uint64
	StatusURL      string
	QRURL          string
	AssetsBase     string // "/checkout-assets"
}

// Render writes the page.
func Render(p Page) ([]byte, error) {
	var buf bytes.Buffer
	if err := page.Execute(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PaymentURI is the EIP-681 URI of a USDC transfer of amount base units to deposit on chainID:
// ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<amount>.
func PaymentURI(token string, chainID int64, deposit string, amount int64) string {
	return fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s", token, chainID, deposit, big.NewInt(amount).String())
}

// QRPNG is a PNG QR code of content, size pixels wide, with medium error correction.
func QRPNG(content string, size int) ([]byte, error) {
	return qrcode.Encode(content, qrcode.Medium, size)
}
