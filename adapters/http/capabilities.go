package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// ChainInfo describes one chain the deployment knows.
type ChainInfo struct {
	ChainID     int64   `json:"chainId" oas:"required"`
	Name        string  `json:"name" oas:"required"`
	ChainKey    string  `json:"chainKey" oas:"required"`
	Environment string  `json:"environment" oas:"required,enum=TEST|LIVE"`
	USDCAddress *string `json:"usdcAddress" oas:"required"`
	Available   bool    `json:"available" oas:"required" description:"Whether this deployment has a node for the chain, so its wallets and payments work."`
}

// CapabilitiesConfig is what the composition root knows is built and configured. Features
// report true only for what works end to end in this build.
type CapabilitiesConfig struct {
	Chains   []ChainInfo
	Features map[string]bool
	// UnbuiltPrefixes maps path prefixes of unbuilt capabilities to their feature name.
	UnbuiltPrefixes map[string]string
	// EnvironmentFeatures are the features a caller of each environment can use now (docs/decisions/tenancy.md: an
	// environment without a chain reports every chain feature false); an environment missing
	// here reports Features.
	EnvironmentFeatures map[core.Environment]map[string]bool
}

// buildResponse is the build that answers: the version info.version of the OpenAPI document
// also shows, and the VCS commit it was built from (null when the binary was built without it).
type buildResponse struct {
	Version string  `json:"version" oas:"required" example:"2.0.0+0123456789ab" description:"the build's version (a module version, or the API version with the commit as build metadata); the OpenAPI document's info.version"`
	Commit  *string `json:"commit" oas:"required" example:"0123456789abcdef0123456789abcdef01234567" description:"the VCS commit the binary was built from; null when it was built without VCS stamps"`
}

type capabilitiesResponse struct {
	APIVersion  string          `json:"apiVersion" oas:"required" description:"The API's version: 1 for every /v1 path."`
	Build       buildResponse   `json:"build" oas:"required"`
	Environment string          `json:"environment" oas:"required,enum=TEST|LIVE"`
	Chains      []ChainInfo     `json:"chains" oas:"required" description:"The chains this deployment knows (84532 Base Sepolia for TEST, 8453 Base for LIVE), each with its USDC token address."`
	Features    map[string]bool `json:"features" oas:"required" description:"Feature name → whether it works end to end for the caller's environment in this build (sandbox-only features are false for LIVE keys)."`
}

// capabilities answers without credentials (environment TEST) or with them (the key's).
func (s *Server) capabilities(c *fiber.Ctx) error {
	env := core.EnvTest
	if p, ok := principalOf(c); ok {
		env = p.Environment
	}
	features, ok := s.cfg.Capabilities.EnvironmentFeatures[env]
	if !ok {
		features = s.cfg.Capabilities.Features
	}
	return c.JSON(capabilitiesResponse{
		APIVersion: "1", Environment: string(env), Build: s.build(),
		Chains: s.cfg.Capabilities.Chains, Features: features,
	})
}

// build is the answering build; Config.Version empty is a binary that knows none.
func (s *Server) build() buildResponse {
	b := buildResponse{Version: s.cfg.Version}
	if b.Version == "" {
		b.Version = unversionedBuild
	}
	if s.cfg.Commit != "" {
		b.Commit = &s.cfg.Commit
	}
	return b
}
