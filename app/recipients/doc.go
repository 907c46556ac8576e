// Package recipients is the recipient side of "pay a phone number": phone aliases proved by SMS
// (with their send and guess budgets), the BUSINESS_IDENTITY credential, payout destinations,
// and the SMS outbox through which every text of the off-ramp capabilities goes (sent by a job
// after commit). Payments (app/offramps) and claims (app/claims) reach it through the small
// interfaces they declare.
package recipients
