DROP TABLE bills;
DROP TABLE invoices;
