DELETE FROM tenant_lookups WHERE kind IN ('offramp_payment', 'offramp_provider_ref', 'offramp_claim', 'claim_onchain', 'claim_link');

ALTER TABLE offramp_escrow_events DROP CONSTRAINT offramp_escrow_events_pkey;
ALTER TABLE offramp_escrow_events ADD CONSTRAINT offramp_escrow_events_pkey PRIMARY KEY (chain_id, tx_hash, log_index);
ALTER TABLE offramp_escrow_events DROP COLUMN tenant_id;

ALTER TABLE offramp_claim_challenges DROP CONSTRAINT offramp_claim_challenges_claim_id_fkey;
ALTER TABLE offramp_claim_challenges DROP CONSTRAINT offramp_claim_challenges_pkey;
ALTER TABLE offramp_claim_challenges ADD CONSTRAINT offramp_claim_challenges_pkey PRIMARY KEY (id);
ALTER TABLE offramp_claim_challenges DROP COLUMN tenant_id;

ALTER TABLE offramp_claim_links DROP CONSTRAINT offramp_claim_links_claim_id_fkey;
ALTER TABLE offramp_claim_links DROP CONSTRAINT offramp_claim_links_pkey;
ALTER TABLE offramp_claim_links ADD CONSTRAINT offramp_claim_links_pkey PRIMARY KEY (token_hash);
DROP INDEX offramp_claim_links_claim_idx;
ALTER TABLE offramp_claim_links DROP COLUMN tenant_id;
CREATE INDEX offramp_claim_links_claim_idx ON offramp_claim_links (claim_id);

ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_payment_id_fkey;
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_onchain_key;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_onchain_key UNIQUE (environment, chain_id, onchain_id);
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_payment_key;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_payment_key UNIQUE (payment_id);
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_pkey;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_pkey PRIMARY KEY (id);

ALTER TABLE offramp_review_approvals DROP CONSTRAINT offramp_review_approvals_payment_id_fkey;
ALTER TABLE offramp_review_approvals DROP CONSTRAINT offramp_review_approvals_pkey;
ALTER TABLE offramp_review_approvals ADD CONSTRAINT offramp_review_approvals_pkey PRIMARY KEY (payment_id);
ALTER TABLE offramp_review_approvals DROP COLUMN tenant_id;

ALTER TABLE offramp_hold_rechecks DROP CONSTRAINT offramp_hold_rechecks_payment_id_fkey;
ALTER TABLE offramp_hold_rechecks DROP CONSTRAINT offramp_hold_rechecks_pkey;
ALTER TABLE offramp_hold_rechecks ADD CONSTRAINT offramp_hold_rechecks_pkey PRIMARY KEY (payment_id);
ALTER TABLE offramp_hold_rechecks DROP COLUMN tenant_id;

ALTER TABLE offramp_returns DROP CONSTRAINT offramp_returns_payment_id_fkey;
ALTER TABLE offramp_returns DROP CONSTRAINT offramp_returns_pkey;
ALTER TABLE offramp_returns ADD CONSTRAINT offramp_returns_pkey PRIMARY KEY (payment_id);
ALTER TABLE offramp_returns DROP COLUMN tenant_id;

ALTER TABLE route_quotes DROP CONSTRAINT route_quotes_payment_id_fkey;
ALTER TABLE route_quotes DROP CONSTRAINT route_quotes_pkey;
ALTER TABLE route_quotes ADD CONSTRAINT route_quotes_pkey PRIMARY KEY (id);
DROP INDEX route_quotes_payment_idx;
ALTER TABLE route_quotes DROP COLUMN tenant_id;
CREATE INDEX route_quotes_payment_idx ON route_quotes (payment_id, set_version, "position");

DROP INDEX offramp_payments_provider_ref_key;
CREATE UNIQUE INDEX offramp_payments_provider_ref_key ON offramp_payments (provider, provider_reference)
    WHERE provider_reference IS NOT NULL;
ALTER TABLE offramp_payments DROP CONSTRAINT offramp_payments_pkey;
ALTER TABLE offramp_payments ADD CONSTRAINT offramp_payments_pkey PRIMARY KEY (id);

ALTER TABLE payout_destinations DROP CONSTRAINT payout_destinations_pkey;
ALTER TABLE payout_destinations ADD CONSTRAINT payout_destinations_pkey PRIMARY KEY (id);

ALTER TABLE offramp_claim_challenges ADD CONSTRAINT offramp_claim_challenges_claim_id_fkey FOREIGN KEY (claim_id) REFERENCES offramp_claims (id);
ALTER TABLE offramp_claim_links ADD CONSTRAINT offramp_claim_links_claim_id_fkey FOREIGN KEY (claim_id) REFERENCES offramp_claims (id);
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES offramp_payments (id);
ALTER TABLE offramp_review_approvals ADD CONSTRAINT offramp_review_approvals_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES offramp_payments (id);
ALTER TABLE offramp_hold_rechecks ADD CONSTRAINT offramp_hold_rechecks_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES offramp_payments (id) ON DELETE CASCADE;
ALTER TABLE offramp_returns ADD CONSTRAINT offramp_returns_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES offramp_payments (id);
ALTER TABLE route_quotes ADD CONSTRAINT route_quotes_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES offramp_payments (id);
ALTER TABLE route_quotes ADD CONSTRAINT route_quotes_destination_id_fkey FOREIGN KEY (destination_id) REFERENCES payout_destinations (id);
