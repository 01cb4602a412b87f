# syntax=docker/dockerfile:1
# The image the kubernetes service manager's shard pods run (--image); `make
# image` builds it. A static pure-Go binary (CGO_ENABLED=0, no -tags hf: the
# Hugging Face tokenizer library needs cgo, so --tokenizer takes the builtin
# tiktoken encodings here) on distroless, as a non-root user. TAGS=kubernetes
# adds the kubernetes service manager (client-go, ~35 MB stripped), for
# launching sharded runs from inside a cluster; the shards do not need it.
ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
COPY plugin-sdk/go.mod plugin-sdk/go.sum plugin-sdk/
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TAGS=""
RUN CGO_ENABLED=0 go build -trimpath -tags "${TAGS}" \
      -ldflags "-s -w -X github.com/aiperf-go/aiperf/core/version.Version=${VERSION}" \
      -o /out/aiperf ./cmd/aiperf

# /tmp exists (shards write their artifacts to /tmp/aiperf); the kubelet makes
# /dev/termination-log writable for any user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/aiperf /aiperf
USER nonroot:nonroot
ENTRYPOINT ["/aiperf"]
