# Corridor — the two commands a newcomer needs are `make run` and `make test`.
GO        ?= go
BIN       := bin/corridor
PKGS      := ./...

.PHONY: run build test test-short test-unit vet fmt lint bench clean-data help

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/corridor
	$(GO) build -o $(BIN) ./cmd/corridor

run: build contracts geth ## start the service (and a project-local PostgreSQL and geth dev chain under .data/ unless DATABASE_URL / CHAIN_RPC_URL are set)
	exec ./$(BIN) run

GETH         := bin/geth
GETH_VERSION := v1.17.8

.PHONY: geth
geth: ## build go-ethereum's geth v1.17.8 into bin/geth for the local dev chain, only when missing (the first build takes minutes)
	@test -x $(GETH) || { echo "building geth $(GETH_VERSION) into $(GETH) (once; this takes a few minutes)"; \
		GOBIN="$(CURDIR)/bin" $(GO) install github.com/ethereum/go-ethereum/cmd/geth@$(GETH_VERSION); }

.PHONY: contracts
contracts: ## contract artifacts into contracts/build (npm ci, pinned solc, Safe v1.4.1) and Go bindings when an ABI changed
	GO="$(GO)" bash contracts/build.sh

# The money paths' suites and corridor check's run a third time on a throwaway Citus cluster
# (a coordinator and two workers; docs/scaling.md): `make test-citus`. The list is kept to the
# payments, off-ramp, card, two-factor, webhook, checkout, invoice, treasury and wallet paths
# (the wallet activity and secondary lists among them) and the ledger's (verify and its tamper
# tests) for CI's time (each package starts three servers); every money suite passes there too:
# make test-citus CITUS_PKGS="./test/... of your choice".
CITUS_PKGS ?= ./test/payments ./test/offramp ./test/claims ./test/cards ./test/twofa ./test/webhooks ./test/checkout ./test/invoices ./test/treasury ./test/wallets ./test/secondary ./test/ledger ./test/check ./test/citus

# Every suite runs as production does, through the store's commit pipeline (STORE_PIPELINE_LANES=2,
# docs/ledger.md, "Commit pipeline"); the money paths' black-box suites run a second time with one
# transaction per unit of work (lanes 0); `make test-no-pipeline` runs every suite that way.
UNIT_TX_PKGS := ./test/api ./test/payments ./test/cards ./test/treasury ./test/invoices ./test/offramp ./test/checkout ./test/agents ./test/webhooks

test: contracts browser softhsm alerts-check ## unit + integration tests against a real PostgreSQL (TEST_DATABASE_URL, testcontainers, or a throwaway local cluster), then a short fuzz run
	$(GO) vet $(PKGS)
	CORRIDOR_REQUIRE_SOFTHSM=1 $(GO) test -count=1 -timeout 15m $(PKGS)
	cd sdk/go && $(GO) vet ./... && $(GO) test -count=1 ./...
	CORRIDOR_TEST_PIPELINE_LANES=0 $(GO) test -count=1 -timeout 10m $(UNIT_TX_PKGS)
	@if [ -n "$(CITUS_SOURCE)" ] || [ -e "$(CITUS_LIB)" ]; then $(MAKE) test-citus; else \
		echo "make test: no Citus here (set CITUS_SOURCE to a Citus release tarball, or install it): the Citus pass is not run"; fi
	$(MAKE) fuzz

# Native Go fuzz targets: package, function and budget. Their seed corpora are committed under
# each package's testdata/fuzz/<Fuzz…>/ and also run as plain tests in every `go test`; a crasher
# found here is written there too, so it becomes a regression test once committed.
# Budgets are counts of executions (about 3 s each on a 2-core CI machine), not durations: with
# a duration, Go 1.26's fuzz coordinator can report its own deadline as a failure
# ("context deadline exceeded", go.dev/issue/75804, fixed in Go 1.27). FUZZTIME=10s (or 50000x)
# gives every target that budget instead.
FUZZ_TARGETS := ./core:FuzzParseUSD:200000x ./core/recipient:FuzzParsePhone:100000x \
	./core/tenant:FuzzValidateAddress:180000x ./core/webhook:FuzzVerify:180000x \
	./core/policy:FuzzParseDocumentCompile:180000x ./adapters/http:FuzzDecodeJSON:10000x \
	./adapters/http:FuzzCanonicalJSON:20000x ./adapters/http:FuzzCheckKeys:20000x
FUZZTIME ?=

.PHONY: fuzz
fuzz: ## fuzz the request decoders (strict JSON, amounts, phones, addresses), the policy compiler and the webhook signature parser, each for a count of executions (about 3 s; FUZZTIME overrides)
	@for target in $(FUZZ_TARGETS); do \
		pkg=$${target%%:*}; rest=$${target#*:}; fn=$${rest%%:*}; budget=$${rest#*:}; \
		budget=$(or $(FUZZTIME),$$budget); \
		echo "fuzz $$fn in $$pkg for $$budget"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $$budget -parallel 2 $$pkg || exit 1; \
	done

test-no-pipeline: contracts browser ## every black-box suite with one transaction per unit of work (the commit pipeline off, as STORE_PIPELINE_LANES=0)
	CORRIDOR_TEST_PIPELINE_LANES=0 $(GO) test -count=1 -timeout 15m ./test/...

test-short: contracts ## unit tests only (no database)
	$(GO) test -count=1 -short $(PKGS)

# The use cases, the domain, the ledger and the port fakes and contracts are tested without a
# database (ports/fake stands in for the adapters): with no database URL and the test-database
# helper pointed at a source that does not exist, a package that reached for PostgreSQL fails.
UNIT_PKGS := ./app/... ./core/... ./ledger/... ./ports/...

test-unit: ## the app, core, ledger and ports tests, in seconds, with no database reachable (they use ports/fake)
	env -u DATABASE_URL -u TEST_DATABASE_URL CORRIDOR_TESTDB_SOURCE=none-in-unit-tests $(GO) test -count=1 $(UNIT_PKGS)

# Browser tests (the hosted checkout page, the console) drive headless Chromium through chromedp.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: browser
browser: ## headless Chromium for the browser tests: Debian's chromium, installed with apt-get only when none is on PATH (or CHROMIUM names one)
	@test -n "$$CHROMIUM" || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests (once)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# Alert rules are checked and unit-tested with promtool (docs/runbooks.md is what they link to).
.PHONY: alerts-check
alerts-check: ## check deploy/prometheus/alerts.yml and run its promtool unit tests (Debian's prometheus package provides promtool; installed with apt-get only when missing)
	@command -v promtool >/dev/null 2>&1 || { \
		echo "installing Debian's prometheus for promtool (once)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; }
	promtool check rules deploy/prometheus/alerts.yml
	promtool test rules deploy/prometheus/alerts_test.yml

# The PKCS#11 custody signer is tested against SoftHSM2 (adapters/custody); make test requires it.
.PHONY: chaos
chaos: contracts ## every crash, fault and cluster scenario at full length (docs/reliability.md), each ending with corridor check's checks, and on Citus a worker and the coordinator killed under load; not part of .ci/run
	CORRIDOR_CHAOS=1 $(GO) test -count=1 -timeout 20m ./test/crash/ ./test/faults/ ./test/cluster/
	CORRIDOR_CHAOS=1 $(GO) test -count=1 -timeout 10m -run 'TestReadReplica|TestReplicas' ./test/api/ ./test/cards/
	@if [ -n "$(CITUS_SOURCE)" ] || [ -e "$(CITUS_LIB)" ]; then $(MAKE) chaos-citus; else \
		echo "make chaos: no Citus here (set CITUS_SOURCE or install it): the Citus worker and coordinator kills are not run"; fi

.PHONY: race
race: contracts browser softhsm ## every package's tests under the race detector (the service runs in the suites' process, so its HTTP, pipeline and jobs are instrumented); about 17 minutes on two cores; not part of .ci/run
	CORRIDOR_REQUIRE_SOFTHSM=1 $(GO) test -race -count=1 -timeout 60m $(PKGS)

# A recipe line naming $(MAKE) runs even under make -n, so the tests sit in a target of their own.
.PHONY: chaos-citus
chaos-citus: contracts citus ## make chaos's Citus part: a worker and the coordinator killed under load, at full length (docs/reliability.md)
	CORRIDOR_CHAOS=1 CORRIDOR_TESTDB_SOURCE=citus $(GO) test -count=1 -timeout 15m -run 'KilledUnderLoad|WorkerSilent' ./test/citus/

# Citus (docs/scaling.md, step two). The extension is installed from a release source tarball
# only when CITUS_SOURCE names one (CI points it at the tarball kept beside the checkout);
# otherwise the target says how to get Citus the ordinary way.
CITUS_SOURCE ?=
# The checksum of the 13.2.2 release tarball; set CITUS_SHA256= to build another release.
CITUS_SHA256 ?= dd2453caec20a830e5e63f1def5c5a98cb6f57ae510407cdcd800916fcdab430
CITUS_LIB    := $(shell pg_config --pkglibdir 2>/dev/null)/citus.so

.PHONY: citus run-citus test-citus
citus: ## the Citus extension for make run-citus and the Citus test pass: built from the release tarball CITUS_SOURCE names only when missing
	@if [ -e "$(CITUS_LIB)" ]; then :; \
	elif [ -n "$(CITUS_SOURCE)" ]; then \
		echo "building Citus from $(CITUS_SOURCE) into $$(pg_config --pkglibdir) (once; a few minutes)"; \
		SUDO="$(SUDO)" CITUS_SHA256="$(CITUS_SHA256)" bash deploy/citus/build-citus.sh "$(CITUS_SOURCE)"; \
	else \
		echo "Citus is not installed. Either:"; \
		echo "  - install it from Citus's apt repository (postgresql-15-citus-13.2, https://docs.citusdata.com), or"; \
		echo "  - run the citusdata/citus image: docker compose --profile citus up -d citus, then DATABASE_URL=... make run, or"; \
		echo "  - build it from a release tarball: make citus CITUS_SOURCE=path/to/citus-13.2.2.tar.gz"; \
		exit 1; \
	fi

test-citus: contracts citus ## the money paths' black-box suites and corridor check's on a throwaway Citus cluster (coordinator + 2 workers; part of make test when Citus is available)
	CORRIDOR_TESTDB_SOURCE=citus $(GO) test -count=1 -timeout 15m $(CITUS_PKGS)

run-citus: build contracts geth citus ## make run on a local Citus cluster: a coordinator and two workers under .data/citus, migrated and distributed by tenant, with the dev chain
	CORRIDOR_LOCAL_DATABASE=citus exec ./$(BIN) run

.PHONY: haproxy run-cluster
haproxy: ## HAProxy for make run-cluster: Debian's haproxy, installed with apt-get only when missing
	@command -v haproxy >/dev/null 2>&1 || { \
		echo "installing Debian's haproxy for the local cluster (once)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy; }

run-cluster: build contracts geth haproxy $(if $(filter citus,$(CORRIDOR_LOCAL_DATABASE)),citus) ## HAProxy on :8080 (health checks on /readyz) in front of three replicas, one local primary and a hot standby for lagging reads, or with CORRIDOR_LOCAL_DATABASE=citus a local Citus cluster (deploy/cluster/run-cluster.sh)
	exec bash deploy/cluster/run-cluster.sh

.PHONY: softhsm
softhsm: ## SoftHSM2 for the PKCS#11 custody signer's tests: Debian's softhsm2, installed with apt-get only when missing
	@test -e /usr/lib/softhsm/libsofthsm2.so && command -v softhsm2-util >/dev/null 2>&1 || { \
		echo "installing Debian's softhsm2 for the custody signer's tests (once)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends softhsm2; }

fmt: ## gofmt the tree
	gofmt -w $$(git ls-files '*.go')

GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT         := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

$(GOLANGCI_LINT):
	@echo "installing golangci-lint $(GOLANGCI_LINT_VERSION) into $@ (once)"
	@rm -rf bin/.golangci-lint && mkdir -p bin/.golangci-lint
	GOBIN="$(CURDIR)/bin/.golangci-lint" $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv bin/.golangci-lint/golangci-lint $@ && rm -rf bin/.golangci-lint

lint: $(GOLANGCI_LINT) tidy-check ## gofmt check, go.mod tidy (both modules), then golangci-lint (pinned; .golangci.yml: staticcheck, errcheck, gosec, govet, depguard, ...)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GOLANGCI_LINT) run ./...

bench: build contracts geth ## load-generate with vegeta (starts the service, with its dev chain, unless one answers; BENCH_ARGS="-duration 5s"; see bench/README.md)
	$(GO) run ./bench/load $(BENCH_ARGS)

# The clients under sdk/ are generated from sdk/openapi.json, the document `corridor openapi`
# prints (every route a build can serve), with pinned generators and no manual edit; a test in
# sdk/go/corridor fails when either is stale.
OAPI_CODEGEN_VERSION := v2.8.2

# A go.mod that `go mod tidy` would change (a directly used module marked // indirect, a missing
# or unused requirement) fails here, for the service's module and the Go client's.
.PHONY: tidy-check
tidy-check: ## fail when go mod tidy would change go.mod or go.sum (the service's module and sdk/go's)
	$(GO) mod tidy -diff
	cd sdk/go && $(GO) mod tidy -diff

.PHONY: sdk
sdk: ## regenerate sdk/openapi.json, the Go client sdk/go/corridor (oapi-codegen) and the TypeScript types sdk/typescript (openapi-typescript)
	$(GO) run ./cmd/corridor openapi > sdk/openapi.json.tmp && mv sdk/openapi.json.tmp sdk/openapi.json
	$(GO) run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION) -config sdk/go/oapi-codegen.yaml sdk/openapi.json
	rm -f sdk/go/corridor/*.gen.go && $(GO) run ./sdk/gensplit -in sdk/go/corridor.gen.tmp -out sdk/go/corridor && rm sdk/go/corridor.gen.tmp
	cd sdk/typescript && npm ci --no-audit --no-fund && npm run generate && npm run typecheck

# The document must work with the generators partners use, unchanged: sdk/check/run.sh runs
# oapi-codegen (default configuration), ogen, openapi-typescript, @hey-api/openapi-ts and
# openapi-typescript-codegen over it and compiles what each wrote. It downloads generator modules
# and npm packages and takes minutes, so it is its own target, not part of make test.
OGEN_VERSION := v1.25.0

.PHONY: sdk-check
sdk-check: ## generate clients from the document with oapi-codegen (default config), ogen, openapi-typescript, @hey-api/openapi-ts and openapi-typescript-codegen, and compile each (sdk/check/run.sh)
	GO="$(GO)" OAPI_CODEGEN_VERSION=$(OAPI_CODEGEN_VERSION) OGEN_VERSION=$(OGEN_VERSION) bash sdk/check/run.sh

.PHONY: examples
examples: contracts ## run every program under examples/ (the Go client) against a throwaway service and simulated chain
	$(GO) test -count=1 ./test/examples/

.PHONY: bench-cluster
bench-cluster: contracts ## one replica against three on one throwaway primary, limits in the process or shared (BENCH_CLUSTER_ARGS; docs/scaling.md, docs/performance.md)
	$(GO) run ./bench/cluster $(BENCH_CLUSTER_ARGS)

.PHONY: bench-citus
bench-citus: contracts citus ## the ledger pipeline and the API's deposits on plain PostgreSQL and on a throwaway Citus cluster (coordinator + 2 workers) in one run: transfers/s, cpu per transfer by process, ratio, and the capacity model for N workers (BENCH_CITUS_ARGS; docs/scaling.md)
	$(GO) run ./bench/citus $(BENCH_CITUS_ARGS)

.PHONY: bench-money
bench-money: build contracts geth ## the money path quickly (~3 min): deposits and card authorizations over HTTP (32 tenants, 64 workers) beside the ledger pipeline in the same run, with their ratios (BENCH_ARGS; docs/performance.md)
	$(GO) run ./bench/load -quick $(BENCH_ARGS)

.PHONY: bench-ledger test-no-pipeline
bench-ledger: ## ledger store vs a pgbench ceiling on a throwaway PostgreSQL; writes bench/results/ledger.json (BENCH_LEDGER_ARGS; docs/performance.md)
	$(GO) run ./bench/ledger $(BENCH_LEDGER_ARGS)

clean-data: ## stop nothing, delete .data/ (local clusters, dev chain, secrets), and a cluster kept outside the checkout that .data links to (as root under a private home)
	@for link in $$(find .data -maxdepth 2 -name postgres -type l 2>/dev/null); do \
		target="$$(readlink "$$link")"; echo "rm -rf $$target (linked from $$link)"; \
		rm -rf "$$target"; rm -f "$$(dirname "$$target")/origin"; rmdir "$$(dirname "$$target")" 2>/dev/null || true; \
	done
	rm -rf .data
