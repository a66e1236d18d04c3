#!/bin/sh
# Build the bot on the host: bin/bot, compiled by cargo from src/ and proto/.
# Cargo's output stays in target/ (or $CARGO_TARGET_DIR), so a build with nothing new is quick;
# the first build compiles every dependency and takes a few minutes.
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

cargo build --release --locked
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p bin
if ! cmp -s "$target_dir/release/bot" bin/bot; then
    # A new file renamed into place: a running bot keeps its old binary.
    cp "$target_dir/release/bot" bin/bot.new
    mv -f bin/bot.new bin/bot
fi
