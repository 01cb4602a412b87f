#!/usr/bin/env bash
# make tokenizers-lib: builds libtokenizers.a, the Rust static library behind
# github.com/daulet/tokenizers (the `hf` tokenizer plugin), from the exact
# module version in go.mod. The Go module cache is read-only, so the sources
# are copied to a build dir first; the result is cached and reused.
#
# Env: TOKENIZERS_VERSION (default 1.22.1), TOKENIZERS_LIB_DIR (default
# .cache/tokenizers-v$TOKENIZERS_VERSION/lib), GO (default go),
# CARGO_TARGET_DIR (optional, lets CI keep cargo's build cache elsewhere).
# Prints the directory holding libtokenizers.a on its last line.
set -euo pipefail
# Relative paths (defaults and env overrides) are from the repository root.
cd "$(dirname "$0")/.."

version=${TOKENIZERS_VERSION:-1.22.1}
go_bin=${GO:-go}
root=.cache/tokenizers-v$version
lib_dir=${TOKENIZERS_LIB_DIR:-$root/lib}
src_dir=$root/src
lib=$lib_dir/libtokenizers.a
# The Go side links against this versioned symbol, so a library from another
# release would fail at link time; check it here to fail earlier and clearer.
symbol=tokenizers_version_${version//./_}

has_symbol() {
  # nm is optional: without it the Go linker still enforces the version.
  if ! command -v nm >/dev/null 2>&1; then
    return 0
  fi
  nm -g "$1" 2>/dev/null | grep " T $symbol\$" >/dev/null
}

if [[ -f $lib ]]; then
  if has_symbol "$lib"; then
    echo "tokenizers: using cached $lib" >&2
    (cd "$lib_dir" && pwd)
    exit 0
  fi
  echo "tokenizers: $lib lacks $symbol (another version?); rebuilding" >&2
  rm -f "$lib"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "tokenizers: cargo not found; install Rust (https://rustup.rs) to build the Hugging Face tokenizer library, or build without it (go build ./cmd/aiperf) and use --tokenizer builtin" >&2
  exit 1
fi

module=github.com/daulet/tokenizers@v$version
"$go_bin" mod download "$module"
mod_dir=$("$go_bin" list -m -f '{{.Dir}}' "$module")
if [[ -z $mod_dir || ! -f $mod_dir/Cargo.toml ]]; then
  echo "tokenizers: module $module has no Cargo.toml at '$mod_dir'" >&2
  exit 1
fi

# Fresh copy every build: stale sources from another version must not mix in.
# benches/ is copied too, since Cargo.toml names a bench target there.
rm -rf "$src_dir"
mkdir -p "$src_dir"
cp -R "$mod_dir"/. "$src_dir"/
chmod -R u+w "$src_dir"

target_dir=${CARGO_TARGET_DIR:-$PWD/$src_dir/target}
echo "tokenizers: cargo build --release --locked in $src_dir (a few minutes on a cold cache)" >&2
(cd "$src_dir" && CARGO_TARGET_DIR=$target_dir cargo build --release --locked)

built=$target_dir/release/libtokenizers.a
if ! has_symbol "$built"; then
  echo "tokenizers: $built does not export $symbol" >&2
  exit 1
fi
mkdir -p "$lib_dir"
# Copy then rename, so an interrupted copy never looks like a cached library.
cp "$built" "$lib.tmp.$$"
mv "$lib.tmp.$$" "$lib"
echo "tokenizers: built $lib" >&2
(cd "$lib_dir" && pwd)
