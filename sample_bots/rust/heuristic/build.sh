#!/bin/sh
# Build the bot on the host: bin/heuristic, compiled by cargo from src/ and agent.proto.
# Cargo's output stays in target/ (or $CARGO_TARGET_DIR), so a build with nothing new is quick.
set -eu
cd "$(dirname "$0")"

for tool in cargo protoc; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        case "$tool" in
            cargo) hint="install Rust with rustup (https://rustup.rs)" ;;
            protoc) hint="apt-get install protobuf-compiler" ;;
        esac
        echo "build.sh: $tool: not found ($hint)" >&2
        exit 127
    fi
done

CARDARENA_PROTO_DIR="$(cd "${CARDARENA_PROTO_DIR:-../../../proto}" && pwd)"
export CARDARENA_PROTO_DIR

cargo build --release --locked
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p bin
if ! cmp -s "$target_dir/release/heuristic" bin/heuristic; then
    # A new file renamed into place: a running bot keeps its old binary.
    cp "$target_dir/release/heuristic" bin/heuristic.new
    mv -f bin/heuristic.new bin/heuristic
fi
