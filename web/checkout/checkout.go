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
	"math"
	"math/big"
	"regexp"
	"time"

	qrcode "github.com/skip2/go-qrcode"
)

//go:embed page.html error.html assets
var files embed.FS

var (
	page      = template.Must(template.ParseFS(files, "page.html"))
	errorPage = template.Must(template.ParseFS(files, "error.html"))
)

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
	ID           string
	Amount       string // "12.50"
	Currency     string // USD
	CryptoAmount string // "12.500000"
	// CryptoDue is what is still to send: CryptoAmount, or the rest once part arrived. The
	// wallet link (PaymentURI) and the QR code ask for it.
	CryptoDue      string
	Cryptocurrency string // USDC
	Description    string
	Merchant       string
	DepositAddress string
	ChainID        int64
	PaymentURI     string
	Status         string // created, pending, completed, failed
	FailureReason  string // expired, underpaid (failed only)
	// Received is the USDC seen at the deposit address ("4.000000"), ReceivedBaseUnits and
	// AmountBaseUnits the same and the amount due in base units.
	Received          string
	ReceivedBaseUnits int64
	AmountBaseUnits   int64
	// TransactionHash is the latest transfer seen to the deposit address.
	TransactionHash string
	ExpiresAt       time.Time
	// Confirmations is the depth a payment needs; Seen the depth of the latest transfer.
	Confirmations uint64
	Seen          int64
	StatusURL     string
	QRURL         string
	AssetsBase    string // "/checkout-assets"
}

// view is the page as the template reads it: the wallet link as a URL the template trusts
// (validated here), and what the status says.
type view struct {
	Page
	WalletURI   template.URL
	Terminal    bool
	PartlyPaid  bool
	StatusLabel string
	Detail      string
	Network     string
	// DepthRule is the footer's "1 confirmation" or "3 confirmations".
	DepthRule string
}

// StatusLabels are the payment page's status lines by state (checkout.js shows the same): the
// API's status, with a failure told apart by its reason and an overpayment by its amount.
var StatusLabels = map[string]string{
	"created":   "Waiting for payment",
	"pending":   "Payment seen",
	"completed": "Payment completed",
	"overpaid":  "Payment completed: overpaid",
	"expired":   "Payment request expired",
	"underpaid": "Underpaid",
}

// networks name the chains a payer's wallet shows by name; any other is "chain <id>".
var networks = map[int64]string{
	1: "Ethereum", 8453: "Base", 84532: "Base Sepolia (testnet)", 11155111: "Sepolia (testnet)",
	137: "Polygon", 10: "Optimism", 42161: "Arbitrum One", 1337: "a local development chain", 31337: "a local development chain",
}

// NetworkName is how the page names a chain, with its id so a payer can check the wallet's.
func NetworkName(chainID int64) string {
	if name, ok := networks[chainID]; ok {
		return fmt.Sprintf("%s (chain id %d)", name, chainID)
	}
	return fmt.Sprintf("chain id %d", chainID)
}

// Plural is n and the noun, in the singular for one ("1 confirmation", "3 confirmations").
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// state is the page's state: the API's status, a failure named by its reason, and a completed
// payment that received more than it asked for called overpaid.
func state(p Page) string {
	switch {
	case p.Status == "failed" && p.FailureReason == "underpaid":
		return "underpaid"
	case p.Status == "failed":
		return "expired"
	case p.Status == "completed" && p.ReceivedBaseUnits > p.AmountBaseUnits:
		return "overpaid"
	}
	return p.Status
}

// eip681Transfer is the only shape of wallet link the page renders: an ERC-20 transfer call.
var eip681Transfer = regexp.MustCompile(`^ethereum:0x[0-9a-fA-F]{40}@[1-9][0-9]*/transfer\?address=0x[0-9a-fA-F]{40}&uint256=[0-9]+$`)

// Render writes the page. The wallet link must be an EIP-681 USDC transfer: html/template
// rewrites any other scheme than http(s) and mailto to "#ZgotmplZ", so a URI that passed the
// check is handed over as template.URL, and any other is an error, never rendered.
func Render(p Page) ([]byte, error) {
	if !eip681Transfer.MatchString(p.PaymentURI) {
		return nil, fmt.Errorf("checkout page %s: the payment URI %q is not an EIP-681 transfer", p.ID, p.PaymentURI)
	}
	uri := template.URL(p.PaymentURI) //nolint:gosec // matched eip681Transfer above: only 0x hex, digits and the fixed path reach the page
	v := view{Page: p, WalletURI: uri, Terminal: p.Status == "completed" || p.Status == "failed",
		StatusLabel: StatusLabels[state(p)], Detail: detail(p), Network: NetworkName(p.ChainID),
		DepthRule: Plural(depth(p), "confirmation")}
	v.PartlyPaid = !v.Terminal && p.ReceivedBaseUnits > 0 && p.ReceivedBaseUnits < p.AmountBaseUnits
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// detail is the line under the status: how deep a seen payment is, why a payment failed, or
// what a completed one was.
func detail(p Page) string {
	switch state(p) {
	case "pending":
		// A transfer deeper than needed while the amount is still short counts as fully deep.
		return fmt.Sprintf("%d of %s", min(p.Seen, depth(p)), Plural(depth(p), "confirmation"))
	case "completed":
		return "Thank you."
	case "overpaid":
		return fmt.Sprintf("Overpaid: %s %s arrived for the %s %s requested. Contact the merchant for a refund of the difference.",
			p.Received, p.Cryptocurrency, p.CryptoAmount, p.Cryptocurrency)
	case "underpaid":
		if p.ReceivedBaseUnits >= p.AmountBaseUnits {
			// The rest arrived after the request expired: the page says so rather than call the
			// whole amount underpaid.
			return fmt.Sprintf("Paid late: %s %s arrived for the %s %s requested, part of it after the request expired. Contact the merchant for a refund.",
				p.Received, p.Cryptocurrency, p.CryptoAmount, p.Cryptocurrency)
		}
		return fmt.Sprintf("Underpaid: %s %s arrived of the %s %s requested before the request expired. Contact the merchant for a refund.",
			p.Received, p.Cryptocurrency, p.CryptoAmount, p.Cryptocurrency)
	case "expired":
		if p.ReceivedBaseUnits > 0 {
			return fmt.Sprintf("This payment request expired before a payment arrived; %s %s arrived after it. Contact the merchant for a refund.",
				p.Received, p.Cryptocurrency)
		}
		return "This payment request expired before a payment arrived."
	}
	return ""
}

// ErrorPage is the page shown instead of a payment page: an unknown id, or a service that
// cannot show the payment now.
type ErrorPage struct {
	StatusCode int
	Title      string
	Message    string
	RequestID  string
	AssetsBase string
}

// RenderError writes an error page.
func RenderError(e ErrorPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := errorPage.Execute(&buf, e); err != nil {
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

// depth is the confirmations a payment needs as a count to print; a chain's setting is small, so
// anything beyond int64 (never configured) prints as the largest count.
func depth(p Page) int64 {
	if p.Confirmations > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(p.Confirmations)
}
