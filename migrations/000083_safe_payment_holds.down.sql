DROP TABLE safe_payment_holds;
