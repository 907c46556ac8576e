# Corridor service image: `docker compose up` runs it against the compose PostgreSQL.
# Build stage: a static binary (CGO off; go-ethereum falls back to pure-Go secp256k1).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY sdk/go/go.mod sdk/go/go.sum ./sdk/go/
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/corridor ./cmd/corridor \
 && mkdir -p /out/data

# Runtime stage: no shell, no package manager, runs as the unprivileged "nonroot" user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/corridor /usr/local/bin/corridor
# The data dir keeps the generated session secret; owned by nonroot so a named volume inherits it.
COPY --from=build --chown=65532:65532 /out/data /var/lib/corridor
# Metrics listen on every interface of the container (its loopback is unreachable from a
# scraper); publish 9464 only to the monitoring network, never beside the API's 8080.
ENV CORRIDOR_ADDR=:8080 \
    METRICS_ADDR=:9464 \
    CORRIDOR_DATA_DIR=/var/lib/corridor
EXPOSE 8080 9464
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/corridor"]
# `serve` applies the migrations to DATABASE_URL, then serves.
CMD ["serve"]
