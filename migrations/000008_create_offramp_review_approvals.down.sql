DROP TABLE IF EXISTS offramp_review_approvals;
