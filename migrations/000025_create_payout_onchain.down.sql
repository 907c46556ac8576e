DROP TABLE payout_liquidity_top_ups;
DROP INDEX offramp_payments_held_idx;
DROP INDEX offramp_payments_awaiting_idx;
DROP TABLE offramp_hold_rechecks;
DROP TABLE payout_onchain_transfers;
