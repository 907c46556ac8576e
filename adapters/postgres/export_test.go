package postgres

// WithBeforeCommit sets a hook that runs after a batch's flush and before its COMMIT.
func WithBeforeCommit(opts PipelineOptions, hook func()) PipelineOptions {
	opts.beforeCommit = hook
	return opts
}
