# aiperf (Go). `make demo` works on a fresh machine with only Go; `make test`
# also builds the Rust tokenizer library (cargo, from crates.io) once.
GO        ?= go
BIN       := bin/aiperf
STATICCHECK_VERSION := v0.8.2
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin
HAVE_CARGO := $(shell command -v cargo 2>/dev/null)
# go-nvml's cgo preamble uses deprecated NVML declarations (29 warnings on a
# cold build); the warnings say nothing about our code.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

# Builds with Hugging Face tokenizer support link libtokenizers.a.
HF_ENV    = CGO_LDFLAGS="-L$(TOKENIZERS_LIB_DIR)"
TEST_ENV  = $(HF_ENV) AIPERF_REQUIRE_TESTDATA=1 AIPERF_QWEN3_TOKENIZER=$(TESTDATA_DIR)/qwen3/tokenizer.json

.PHONY: all build build-hf build-purego test vet lint staticcheck fmt demo bench clean docs fuzz

all: build

# With cargo: Hugging Face tokenizers included (-tags hf). Without: the
# pure-Go binary, where --tokenizer <hf name> explains how to get support.
ifneq ($(HAVE_CARGO),)
build: build-hf
else
build: build-purego
	@echo "note: cargo not found; built without Hugging Face tokenizer support (see README)"
endif

build-hf: tokenizers-lib
	$(HF_ENV) $(GO) build -tags hf,kubernetes -o $(BIN) ./cmd/aiperf

build-purego:
	$(GO) build -tags kubernetes -o $(BIN) ./cmd/aiperf

# The whole suite with Hugging Face support and the real Qwen3 tokenizer, the
# pure-Go build's own tests, the plugin-sdk module, and the manifest check.
# Tests run the real mock server over loopback.
test: vet tokenizers-lib testdata
	$(TEST_ENV) $(GO) test -tags hf -count=1 ./...
	$(GO) test -count=1 ./plugins/builtin/tokenizer/hf/ ./core/app/
	cd plugin-sdk && $(GO) test -count=1 ./...
	$(HF_ENV) $(GO) run -tags hf ./cmd/aiperf plugins --validate

vet: tokenizers-lib
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (gofmt -l . && echo "gofmt needed" && exit 1)
	$(GO) vet ./...
	$(HF_ENV) $(GO) vet -tags hf ./...
	cd plugin-sdk && $(GO) vet ./...

staticcheck: tokenizers-lib
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN_DIR)/staticcheck ./...
	$(HF_ENV) $(GOBIN_DIR)/staticcheck -tags hf ./...
	cd plugin-sdk && $(GOBIN_DIR)/staticcheck ./...

lint: vet staticcheck

fmt:
	gofmt -w $$(git ls-files '*.go')

# Starts the built-in mock server, profiles it end to end, prints the metrics
# table and writes artifacts under artifacts/demo.
demo: build
	./scripts/demo.sh $(BIN)

# Throughput scenarios against `mock-server --fast`; see docs/PERFORMANCE.md.
bench: build testdata
	QWEN3_TOKENIZER=$(TESTDATA_DIR)/qwen3/tokenizer.json ./scripts/bench.sh $(BIN)
	$(TEST_ENV) $(GO) test -tags hf -run '^$$' -bench . -benchmem ./core/... ./plugins/... ./mockserver/...

# Every fuzz target for FUZZTIME each, after its seeds, which `make test`
# already runs; FUZZ_PKGS=./core/config/... narrows it (see scripts/fuzz.sh).
FUZZTIME ?= 30s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZ_PKGS="$(FUZZ_PKGS)" FUZZFLAGS="$(FUZZFLAGS)" ./scripts/fuzz.sh

clean:
	rm -rf bin artifacts

# Regenerates the tables in docs/ARCHITECTURE.md and docs/PLUGINS.md that are
# derived from the code (package comments, plugin categories, the registry).
docs:
	AIPERF_UPDATE_DOCS=1 $(GO) test -count=1 -run TestDocTablesMatchTheCode ./cmd/aiperf/

# Hugging Face tokenizer support (the `hf` plugin, cgo + Rust): libtokenizers.a
# for github.com/daulet/tokenizers, built once with cargo and cached. Link with
# CGO_LDFLAGS=-L$(TOKENIZERS_LIB_DIR) and -tags hf.
TOKENIZERS_VERSION ?= 1.22.1
TOKENIZERS_LIB_DIR ?= $(CURDIR)/.cache/tokenizers-v$(TOKENIZERS_VERSION)/lib
# Test data (Qwen3 tokenizer.json, pinned by sha256) for the hf plugin tests.
TESTDATA_DIR ?= $(CURDIR)/.cache/testdata

.PHONY: tokenizers-lib testdata

tokenizers-lib:
	GO=$(GO) TOKENIZERS_VERSION=$(TOKENIZERS_VERSION) TOKENIZERS_LIB_DIR=$(TOKENIZERS_LIB_DIR) ./scripts/build-tokenizers.sh

testdata:
	TESTDATA_DIR=$(TESTDATA_DIR) ./scripts/fetch-testdata.sh

# Regenerates the plugin protocol's Go code (needs protoc, protoc-gen-go and
# protoc-gen-go-grpc; the generated files are committed).
.PHONY: proto
proto:
	cd plugin-sdk && PATH="$$PATH:$(GOBIN_DIR)" protoc -I proto \
		--go_out=. --go_opt=module=github.com/aiperf-go/aiperf/plugin-sdk \
		--go-grpc_out=. --go-grpc_opt=module=github.com/aiperf-go/aiperf/plugin-sdk \
		proto/aiperf/plugin/v1/plugin.proto

# The kubernetes service manager against a real kube-apiserver, etcd and
# kube-controller-manager (Job and garbage-collector controllers), built from
# the Go module proxy into .cache/ once (~9 min cold on 2 cores; see
# scripts/k8s-binaries.sh) and driven with envtest; the kubelet is played by
# the test. Also builds the binary with the kubernetes build tag,
# which `make build` sets (docs/KUBERNETES.md: client-go adds ~48 MB).
K8S_VERSION ?= v1.37.2
K8S_BIN_DIR ?= $(CURDIR)/.cache/k8s-$(K8S_VERSION)/bin

.PHONY: test-k8s image

test-k8s:
	K8S_VERSION=$(K8S_VERSION) K8S_BIN_DIR=$(K8S_BIN_DIR) ./scripts/k8s-binaries.sh
	$(GO) build -tags kubernetes -o /dev/null ./cmd/aiperf
	GO=$(GO) KUBEBUILDER_ASSETS=$(K8S_BIN_DIR) $(GO) test -tags k8s -count=1 -run Envtest ./plugins/builtin/servicemanager/kubernetes/

# The container image the kubernetes service manager's pods run (--image):
# a static pure-Go binary on distroless (Dockerfile). Needs docker; not run
# in CI. DOCKER_BUILD_ARGS="--build-arg TAGS=kubernetes" builds one that can
# also launch sharded runs from inside a cluster.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DOCKER ?= docker

image:
	$(DOCKER) build --build-arg VERSION=$(VERSION) $(DOCKER_BUILD_ARGS) -t aiperf:$(VERSION) .
