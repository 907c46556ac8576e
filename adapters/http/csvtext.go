package http

// CSVText is the formula-injection guard of every CSV this service writes (csvText), for the
// console's own exports.
func CSVText(s string) string { return csvText(s) }
