DROP TABLE twofactor_challenges;
DROP TABLE twofactor_settings;
DROP TABLE twofactor_factors;
DROP TABLE contacts;
