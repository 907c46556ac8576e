package http

// offrampRoutes are the routes of phone-addressed off-ramp payments and their recipients'
// aliases, credentials, payout destinations, provider webhooks and sandbox helpers.
func (s *Server) offrampRoutes() []Route { return nil }
