ALTER TABLE twofactor_challenges DROP CONSTRAINT twofactor_challenges_pkey;
ALTER TABLE twofactor_challenges ADD CONSTRAINT twofactor_challenges_pkey PRIMARY KEY (id);
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_pkey;
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_pkey PRIMARY KEY (id);
ALTER TABLE contacts DROP CONSTRAINT contacts_pkey;
ALTER TABLE contacts ADD CONSTRAINT contacts_pkey PRIMARY KEY (id);
