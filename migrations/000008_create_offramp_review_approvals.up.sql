-- Operator review approvals (docs/decisions/operations.md): who approved which review hold reasons of a payment, and
-- when. The policy composer drops exactly these reasons on later runs; nothing else.
CREATE TABLE offramp_review_approvals (
    payment_id  text PRIMARY KEY REFERENCES offramp_payments (id),
    operator    text NOT NULL,
    reasons     text[] NOT NULL,
    approved_at timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
