#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from the Go module
# proxy into .cache/k8s-<version>/bin for `make test-k8s` (envtest). Cached:
# a second run with the binaries present does nothing.
#
# k8s.io/kubernetes is not meant to be a dependency: its go.mod replaces
# every k8s.io/* staging module with a ./staging path the module zip does not
# carry, and a go.work names them. The recipe: copy the module, delete
# go.work, drop the replace block, require each staging module at the
# matching v0.x release, and build. etcd is built from go.etcd.io/etcd/server/v3
# at the version kubernetes' go.mod names.
set -euo pipefail
cd "$(dirname "$0")/.."
K8S_VERSION="${K8S_VERSION:-v1.37.2}"
STAGING_VERSION="v0${K8S_VERSION#v1}"
OUT="${K8S_BIN_DIR:-$PWD/.cache/k8s-$K8S_VERSION/bin}"
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/kube-controller-manager" ] && [ -x "$OUT/etcd" ]; then
  exit 0
fi
mkdir -p "$OUT"
work="$(mktemp -d)"
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod GOWORK=off

src="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
cp -r "$src" "$work/kubernetes"
chmod -R u+w "$work/kubernetes"
cd "$work/kubernetes"
rm -f go.work go.work.sum
staging=$(sed -n '/^replace (/,/^)/s/^[[:space:]]*\(k8s\.io\/[^ ]*\) => .*/\1/p' go.mod)
sed -i '/^replace (/,/^)/d' go.mod
for m in $staging; do
  go mod edit -require="$m@$STAGING_VERSION"
done
echo "k8s-binaries: building kube-apiserver and kube-controller-manager $K8S_VERSION (several minutes cold)" >&2
go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION" -o "$OUT/" ./cmd/kube-apiserver ./cmd/kube-controller-manager

etcd_version=$(sed -n 's/^[[:space:]]*go\.etcd\.io\/etcd\/server\/v3 \(v[^ ]*\).*/\1/p' go.mod | head -1)
mkdir -p "$work/etcd" && cd "$work/etcd"
go mod init aiperf-etcd-build >/dev/null 2>&1
go mod edit -require="go.etcd.io/etcd/server/v3@$etcd_version"
echo "k8s-binaries: building etcd $etcd_version" >&2
go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" go.etcd.io/etcd/server/v3
echo "k8s-binaries: $OUT" >&2
