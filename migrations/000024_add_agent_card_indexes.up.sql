-- One card per agent (the agents capability also serializes issuance on the agent's row), and
-- the reads of an agent's timeline: its card, then the card's authorizations newest first.
CREATE UNIQUE INDEX cards_agent_idx ON cards (agent_id) WHERE agent_id IS NOT NULL;
CREATE INDEX card_authorizations_card_created_idx ON card_authorizations (card_id, created_at DESC, id DESC);
