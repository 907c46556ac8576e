package http

// ledgerRoutes are the routes of the ledger capability (balances, sandbox deposits, finance).
func (s *Server) ledgerRoutes() []Route { return nil }
