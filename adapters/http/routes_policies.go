package http

// policyRoutes are the routes of spend policies.
func (s *Server) policyRoutes() []Route { return nil }
