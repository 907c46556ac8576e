DROP TABLE IF EXISTS offramp_escrow_cursors;
DROP TABLE IF EXISTS offramp_escrow_events;
DROP TABLE IF EXISTS offramp_claim_challenges;
DROP TABLE IF EXISTS offramp_claim_links;
DROP TABLE IF EXISTS offramp_claims;
