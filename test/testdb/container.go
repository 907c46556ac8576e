package testdb

import (
	"context"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/modules/postgres"
)

// ContainerImage matches the major version of docker-compose.yml.
const ContainerImage = "postgres:15-alpine"

// fromContainer runs PostgreSQL in a container, tuned like the throwaway
// cluster. Ryuk removes the container even if this process dies.
func fromContainer(ctx context.Context) (*Server, func(), error) {
	log.SetDefault(log.NewNoopLogger()) // testcontainers narrates every step otherwise
	ctr, err := postgres.Run(ctx, ContainerImage,
		postgres.WithUsername("corridor"),
		postgres.WithPassword("corridor"),
		postgres.WithDatabase("corridor"),
		testcontainers.WithCmdArgs("-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"),
		postgres.BasicWaitStrategies(),
	)
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		return nil, nil, err
	}
	url, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		return nil, nil, err
	}
	cleanup := func() { _ = testcontainers.TerminateContainer(ctr) }
	return &Server{URL: url, Source: "testcontainers " + ContainerImage}, cleanup, nil
}
