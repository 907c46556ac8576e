DROP TABLE IF EXISTS request_logs;
