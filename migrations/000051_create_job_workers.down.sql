DROP TABLE job_workers;
