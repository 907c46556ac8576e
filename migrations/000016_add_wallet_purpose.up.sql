-- What a wallet is for: GENERAL for wallets partners create; AGENT, TREASURY and ESCROW for the
-- Safes a capability provisions for its own use (an agent's wallet, a treasury bucket, an
-- invoice's hold Safe).
ALTER TABLE wallets
    ADD COLUMN purpose text NOT NULL DEFAULT 'GENERAL'
        CHECK (purpose IN ('GENERAL', 'AGENT', 'TREASURY', 'ESCROW'));
