-- A posting's transfer may live in another home than the posting: a sweep's posting on a
-- platform account proper (home '') belongs to a transfer homed with the share it empties, and
-- a transfer from before the split between tenants (migration 000074) lives in its paying
-- side's home. Readers that go from a posting to its transfer (statements, the journal, the
-- trial balance's other legs, a wallet's activity) name the transfer's home from here, so on
-- Citus they read the transfer on its own shard rather than asking every shard by id.
ALTER TABLE ledger_postings ADD COLUMN transfer_home_tenant_id text;
UPDATE ledger_postings p SET transfer_home_tenant_id = t.home_tenant_id
FROM ledger_transfers t WHERE t.id = p.transfer_id AND t.sequence = p.sequence;
ALTER TABLE ledger_postings ALTER COLUMN transfer_home_tenant_id SET NOT NULL;
