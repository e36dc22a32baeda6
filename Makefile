.PHONY: run test build vet

# Run the service with the shipped config.yaml.
run:
	go run ./cmd/propertyd -config config.yaml

# Run every test (no network needed). The run ends with a line naming the
# tests that skipped and why (no PostgreSQL or Redis to test against, ...),
# then "N passed, N failed"; the exit status is go test's.
test:
	go run ./cmd/testsummary -count=1 -timeout 30m ./...

# Compile every package and write the binaries: bin/propertyd (the
# commands of README's "Command line") and bin/sandbox.
build:
	go build ./...
	go build -buildvcs=auto -o bin/ ./cmd/propertyd ./cmd/sandbox

vet:
	go vet ./...
	test -z "$$(gofmt -l .)"

.PHONY: demo fleet bench bench-smoke

# Try the service without the internet: the upstream sandbox plus propertyd
# (cmd/sandbox/demo.yaml); prints curl commands; Ctrl-C stops both.
demo:
	bash cmd/sandbox/demo.sh

# A fleet without the internet: the sandbox and three instances on ports
# FLEET_PORTS sharing the schema FLEET_SCHEMA of the local PostgreSQL
# (FLEET_POSTGRES) and the database FLEET_REDIS_DB of the local Redis (or
# FLEET_REDIS), with the sample facts loaded as make demo loads them;
# prints curl commands; Ctrl-C stops them all. Another fleet or user of the
# same servers: make fleet FLEET_PORTS="8091 8092 8093" FLEET_SCHEMA=mine
# FLEET_REDIS_DB=5 SANDBOX_LISTEN=127.0.0.1:9091.
FLEET_PORTS ?= 8081 8082 8083
FLEET_SCHEMA ?= propertyd_fleet
FLEET_REDIS_DB ?= 0
fleet:
	FLEET_PORTS="$(FLEET_PORTS)" FLEET_SCHEMA="$(FLEET_SCHEMA)" FLEET_REDIS_DB="$(FLEET_REDIS_DB)" bash cmd/sandbox/fleet.sh

# The benchmark suite (about 9 minutes on 2 cores, more with the PostgreSQL
# rows, which seed a million records there too): prints the table and
# writes it into BENCHMARKS.md.
bench:
	go run ./cmd/bench -out BENCHMARKS.md

# The same with tiny sizes (under a minute), to prove it runs; CI runs it.
# The PostgreSQL and fleet rows run when PROPERTYD_TEST_POSTGRES and
# PROPERTYD_TEST_REDIS are set (CI sets both) and are skipped otherwise.
bench-smoke:
	go run ./cmd/bench -smoke
