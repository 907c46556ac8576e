-- The off-ramp family keys by the SENDER's tenant, and payout destinations by their owner (the
-- recipient), so that on Citus each is distributed by tenant beside the rest of its rows
-- (docs/scaling.md). The tables that hang off a payment or a claim gain the sender's tenant
-- and key with it; their foreign keys carry it (Citus enforces a key between distributed
-- tables only on that column). A route quote names the RECIPIENT's destination, another
-- tenant's row in general, so that key goes: the quote keeps the destination's id and type.
ALTER TABLE route_quotes DROP CONSTRAINT route_quotes_destination_id_fkey;
ALTER TABLE route_quotes DROP CONSTRAINT route_quotes_payment_id_fkey;
ALTER TABLE offramp_returns DROP CONSTRAINT offramp_returns_payment_id_fkey;
ALTER TABLE offramp_hold_rechecks DROP CONSTRAINT offramp_hold_rechecks_payment_id_fkey;
ALTER TABLE offramp_review_approvals DROP CONSTRAINT offramp_review_approvals_payment_id_fkey;
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_payment_id_fkey;
ALTER TABLE offramp_claim_links DROP CONSTRAINT offramp_claim_links_claim_id_fkey;
ALTER TABLE offramp_claim_challenges DROP CONSTRAINT offramp_claim_challenges_claim_id_fkey;

ALTER TABLE payout_destinations DROP CONSTRAINT payout_destinations_pkey;
ALTER TABLE payout_destinations ADD CONSTRAINT payout_destinations_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE offramp_payments DROP CONSTRAINT offramp_payments_pkey;
ALTER TABLE offramp_payments ADD CONSTRAINT offramp_payments_pkey PRIMARY KEY (sender_tenant_id, id);
-- A provider's reference stays unique across tenants through its lookup row; within the
-- sender's rows the index keeps it.
DROP INDEX offramp_payments_provider_ref_key;
CREATE UNIQUE INDEX offramp_payments_provider_ref_key ON offramp_payments (sender_tenant_id, provider, provider_reference)
    WHERE provider_reference IS NOT NULL;

ALTER TABLE route_quotes ADD COLUMN tenant_id text;
UPDATE route_quotes q SET tenant_id = p.sender_tenant_id FROM offramp_payments p WHERE p.id = q.payment_id;
ALTER TABLE route_quotes ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE route_quotes DROP CONSTRAINT route_quotes_pkey;
ALTER TABLE route_quotes ADD CONSTRAINT route_quotes_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE route_quotes ADD CONSTRAINT route_quotes_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES offramp_payments (sender_tenant_id, id);
DROP INDEX route_quotes_payment_idx;
CREATE INDEX route_quotes_payment_idx ON route_quotes (tenant_id, payment_id, set_version, "position");

ALTER TABLE offramp_returns ADD COLUMN tenant_id text;
UPDATE offramp_returns r SET tenant_id = p.sender_tenant_id FROM offramp_payments p WHERE p.id = r.payment_id;
ALTER TABLE offramp_returns ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_returns DROP CONSTRAINT offramp_returns_pkey;
ALTER TABLE offramp_returns ADD CONSTRAINT offramp_returns_pkey PRIMARY KEY (tenant_id, payment_id);
ALTER TABLE offramp_returns ADD CONSTRAINT offramp_returns_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES offramp_payments (sender_tenant_id, id);

ALTER TABLE offramp_hold_rechecks ADD COLUMN tenant_id text;
UPDATE offramp_hold_rechecks h SET tenant_id = p.sender_tenant_id FROM offramp_payments p WHERE p.id = h.payment_id;
ALTER TABLE offramp_hold_rechecks ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_hold_rechecks DROP CONSTRAINT offramp_hold_rechecks_pkey;
ALTER TABLE offramp_hold_rechecks ADD CONSTRAINT offramp_hold_rechecks_pkey PRIMARY KEY (tenant_id, payment_id);
ALTER TABLE offramp_hold_rechecks ADD CONSTRAINT offramp_hold_rechecks_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES offramp_payments (sender_tenant_id, id) ON DELETE CASCADE;

ALTER TABLE offramp_review_approvals ADD COLUMN tenant_id text;
UPDATE offramp_review_approvals a SET tenant_id = p.sender_tenant_id FROM offramp_payments p WHERE p.id = a.payment_id;
ALTER TABLE offramp_review_approvals ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_review_approvals DROP CONSTRAINT offramp_review_approvals_pkey;
ALTER TABLE offramp_review_approvals ADD CONSTRAINT offramp_review_approvals_pkey PRIMARY KEY (tenant_id, payment_id);
ALTER TABLE offramp_review_approvals ADD CONSTRAINT offramp_review_approvals_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES offramp_payments (sender_tenant_id, id);

ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_pkey;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_pkey PRIMARY KEY (sender_tenant_id, id);
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_payment_key;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_payment_key UNIQUE (sender_tenant_id, payment_id);
-- An escrow id stays unique across tenants through its lookup row (the escrow indexer finds
-- the claim by it); within the sender's rows the constraint keeps it.
ALTER TABLE offramp_claims DROP CONSTRAINT offramp_claims_onchain_key;
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_onchain_key UNIQUE (sender_tenant_id, environment, chain_id, onchain_id);
ALTER TABLE offramp_claims ADD CONSTRAINT offramp_claims_payment_id_fkey
    FOREIGN KEY (sender_tenant_id, payment_id) REFERENCES offramp_payments (sender_tenant_id, id);

ALTER TABLE offramp_claim_links ADD COLUMN tenant_id text;
UPDATE offramp_claim_links l SET tenant_id = c.sender_tenant_id FROM offramp_claims c WHERE c.id = l.claim_id;
ALTER TABLE offramp_claim_links ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_claim_links DROP CONSTRAINT offramp_claim_links_pkey;
ALTER TABLE offramp_claim_links ADD CONSTRAINT offramp_claim_links_pkey PRIMARY KEY (tenant_id, token_hash);
ALTER TABLE offramp_claim_links ADD CONSTRAINT offramp_claim_links_claim_id_fkey
    FOREIGN KEY (tenant_id, claim_id) REFERENCES offramp_claims (sender_tenant_id, id);
DROP INDEX offramp_claim_links_claim_idx;
CREATE INDEX offramp_claim_links_claim_idx ON offramp_claim_links (tenant_id, claim_id);

ALTER TABLE offramp_claim_challenges ADD COLUMN tenant_id text;
UPDATE offramp_claim_challenges h SET tenant_id = c.sender_tenant_id FROM offramp_claims c WHERE c.id = h.claim_id;
ALTER TABLE offramp_claim_challenges ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_claim_challenges DROP CONSTRAINT offramp_claim_challenges_pkey;
ALTER TABLE offramp_claim_challenges ADD CONSTRAINT offramp_claim_challenges_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE offramp_claim_challenges ADD CONSTRAINT offramp_claim_challenges_claim_id_fkey
    FOREIGN KEY (tenant_id, claim_id) REFERENCES offramp_claims (sender_tenant_id, id);

-- A recorded escrow log is its claim's: one log names one claim, so its uniqueness per
-- tenant is its uniqueness.
ALTER TABLE offramp_escrow_events ADD COLUMN tenant_id text;
UPDATE offramp_escrow_events e SET tenant_id = c.sender_tenant_id FROM offramp_claims c WHERE c.id = e.claim_id;
DELETE FROM offramp_escrow_events WHERE tenant_id IS NULL;
ALTER TABLE offramp_escrow_events ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE offramp_escrow_events DROP CONSTRAINT offramp_escrow_events_pkey;
ALTER TABLE offramp_escrow_events ADD CONSTRAINT offramp_escrow_events_pkey PRIMARY KEY (tenant_id, chain_id, tx_hash, log_index);

-- The lookups made before the tenant is known: a payment by id (jobs, the recipient's reads),
-- by its provider's reference (provider webhooks), a claim by id (jobs, links), by its escrow
-- id (the escrow indexer) and a claim link by its token's hash (the public claim page).
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT id, 'offramp_payment', sender_tenant_id, created_at FROM offramp_payments;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT provider || ':' || provider_reference, 'offramp_provider_ref', sender_tenant_id, created_at FROM offramp_payments
WHERE provider_reference IS NOT NULL;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT id, 'offramp_claim', sender_tenant_id, created_at FROM offramp_claims;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT environment || ':' || chain_id || ':' || onchain_id, 'claim_onchain', sender_tenant_id, created_at FROM offramp_claims;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT token_hash, 'claim_link', tenant_id, created_at FROM offramp_claim_links;
