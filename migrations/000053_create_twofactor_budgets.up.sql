-- The failure budget of two-factor verification, across challenges: the recent wrong codes of a
-- tenant's environment (subject 'tenant') and of each factor (subject 'factor:<id>'), and until
-- when verification is locked once they exhausted it (docs/twofactor.md).
CREATE TABLE twofactor_budgets (
    tenant_id    text NOT NULL,
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    subject      text NOT NULL,
    failures     timestamptz[] NOT NULL DEFAULT '{}',
    locked_until timestamptz,
    PRIMARY KEY (tenant_id, environment, subject),
    CONSTRAINT twofactor_budgets_failures_bounded CHECK (cardinality(failures) <= 10)
);

-- The locked gauge reads only rows that ever locked.
CREATE INDEX twofactor_budgets_locked_idx ON twofactor_budgets (locked_until) WHERE locked_until IS NOT NULL;
