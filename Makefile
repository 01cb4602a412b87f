# aiperf (Go). `make demo` and `make test` work on a fresh machine with Go.
GO        ?= go
BIN       := bin/aiperf
STATICCHECK_VERSION := v0.8.2
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin

.PHONY: all build test test-sdk vet lint staticcheck fmt demo bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/aiperf

# The whole suite: root module, then the plugin-sdk module, then vet and the
# manifest check. Tests run the real mock server over loopback.
test: vet
	$(GO) test -count=1 ./...
	cd plugin-sdk && $(GO) test -count=1 ./...
	$(GO) run ./cmd/aiperf plugins --validate

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (gofmt -l . && echo "gofmt needed" && exit 1)
	$(GO) vet ./...
	cd plugin-sdk && $(GO) vet ./...

staticcheck:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN_DIR)/staticcheck ./...
	cd plugin-sdk && $(GOBIN_DIR)/staticcheck ./...

lint: vet staticcheck

fmt:
	gofmt -w $$(git ls-files '*.go')

# Starts the built-in mock server, profiles it end to end, prints the metrics
# table and writes artifacts under artifacts/demo.
demo: build
	./scripts/demo.sh $(BIN)

# Throughput scenarios against `mock-server --fast`; see docs/PERFORMANCE.md.
bench: build
	./scripts/bench.sh $(BIN)
	$(GO) test -run '^$$' -bench . -benchmem ./core/... ./plugins/... ./mockserver/...

clean:
	rm -rf bin artifacts
