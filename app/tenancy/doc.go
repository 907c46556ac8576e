// Package tenancy is the tenancy capability: tenants, their members and invitations, API
// keys, and authentication of API keys and identity-provider sessions into a Principal that
// every other capability checks scopes against.
package tenancy
