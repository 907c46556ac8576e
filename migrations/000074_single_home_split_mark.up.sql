-- When money between tenants became two single-home legs (the split): `corridor check`'s
-- single-home-transfers line looks at the transfers from then on. A database upgraded with
-- transfers from before it has legitimate transfers across two homes (a delivery into another
-- tenant's balance as one transfer); they are history, not a fault. The mark is when this
-- migration ran: on a new database before any transfer, on an upgraded one no earlier than the
-- release that split the legs, so it skips at most transfers that were single-home anyway.
CREATE TABLE ledger_home_split (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    split_at timestamptz NOT NULL
);
INSERT INTO ledger_home_split (split_at) VALUES (now());
