DROP TABLE payout_onchain_transfers;
