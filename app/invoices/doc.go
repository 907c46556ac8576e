// Package invoices is the escrow invoices and verifiable bills capability: invoices held in a
// 2-of-3 Safe (payer, payee, arbiter) and settled by a Safe payment two of them sign, the
// balance poller that funds and expires them, the platform arbiter's signature, and bills one
// tenant sends another under an EIP-712 InvoiceAuthorization (docs/decisions/invoices.md).
package invoices
