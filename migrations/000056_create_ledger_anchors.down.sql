DROP TABLE IF EXISTS ledger_anchors;
