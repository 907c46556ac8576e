-- The tenant leads the primary keys of the two-factor family's per-object tables, so that on
-- Citus they are distributed by tenant beside twofactor_settings and twofactor_budgets
-- (docs/scaling.md): every statement of a two-factor unit of work then names the tenant and is
-- routed to its shard group. Ids stay unique by construction; the key only gains the tenant.
ALTER TABLE contacts DROP CONSTRAINT contacts_pkey;
ALTER TABLE contacts ADD CONSTRAINT contacts_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_pkey;
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE twofactor_challenges DROP CONSTRAINT twofactor_challenges_pkey;
ALTER TABLE twofactor_challenges ADD CONSTRAINT twofactor_challenges_pkey PRIMARY KEY (tenant_id, id);
