.PHONY: run test build vet

# Run the service with the shipped config.yaml.
run:
	go run ./cmd/propertyd -config config.yaml

# Run every test (no network needed).
test:
	go test -count=1 ./...

build:
	go build ./...

vet:
	go vet ./...
	test -z "$$(gofmt -l .)"
