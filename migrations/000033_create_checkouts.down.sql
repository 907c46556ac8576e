DROP TABLE checkout_refunds;
DROP TABLE checkouts;
