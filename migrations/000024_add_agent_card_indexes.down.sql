DROP INDEX card_authorizations_card_created_idx;
DROP INDEX cards_agent_idx;
