#!/usr/bin/env bash
# Runs every Fuzz function of the module and of plugin-sdk/ for FUZZTIME
# each (default 30s), one at a time. Seeds alone already run in `make test`.
# FUZZ_PKGS narrows the packages: go list patterns, space-separated (e.g.
# "./core/config/... ./plugin-sdk/pluginpb");
# FUZZFLAGS adds go test flags (e.g. -parallel 1 on a shared machine).
# A failing target does not stop the others; the script lists the failures
# at the end and exits 1. go test writes each crasher under the package's
# testdata/fuzz/<Name>/, where plain `go test` replays it from then on.
set -euo pipefail
FUZZTIME=${FUZZTIME:-30s}
GO=${GO:-go}
cd "$(dirname "$0")/.."

run_module() {
	local dir=$1 pattern=${2:-./...}
	(
		cd "$dir"
		# Only packages whose tests declare a fuzz function are compiled.
		for pkg in $($GO list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' "$pattern" |
			while read -r d; do grep -lq '^func Fuzz' "$d"/*_test.go && echo "$d"; done); do
			# -list prints the matching names, then "ok <pkg>"; keep the names.
			if ! list=$($GO test -list '^Fuzz' "$pkg"); then
				echo "$pkg (its tests do not build)" >>"$failed"
				continue
			fi
			for name in $(grep '^Fuzz' <<<"$list" || true); do
				echo "== $pkg $name ($FUZZTIME)"
				if ! $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" ${FUZZFLAGS:-} "$pkg"; then
					echo "$pkg $name" >>"$failed"
				fi
			done
		done
	)
}

failed=$(mktemp)
trap 'rm -f "$failed"' EXIT
if [ -z "${FUZZ_PKGS:-}" ]; then
	run_module . ./...
	run_module plugin-sdk ./...
fi
for pattern in ${FUZZ_PKGS:-}; do
	case $pattern in
	./plugin-sdk | ./plugin-sdk/* | plugin-sdk | plugin-sdk/*)
		rest=${pattern#./}
		rest=${rest#plugin-sdk}
		run_module plugin-sdk ".${rest:-/...}"
		;;
	*) run_module . "$pattern" ;;
	esac
done
if [ -s "$failed" ]; then
	echo "FAILED fuzz targets:"
	cat "$failed"
	exit 1
fi
echo "all fuzz targets passed"
