#!/bin/sh
# Build the bot into bin/bot: generate the protocol code from agent.proto, then compile a
# static binary against Debian's Go packages (GOPATH mode, no network).
#
# Needs: apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc \
#        golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev
# CARDARENA_PROTO_DIR: the folder holding cardarena/v1/agent.proto (default: ./proto).
# CARDARENA_GOPATH: where the Go libraries are (default: Debian's /usr/share/gocode).
set -eu
cd "$(dirname "$0")"
BOT_DIR=$(pwd)
PROTO_DIR=${CARDARENA_PROTO_DIR:-proto}
LIBRARY_GOPATH=${CARDARENA_GOPATH:-/usr/share/gocode}
WORK_GOPATH="$BOT_DIR/build/gopath"

need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "build.sh: $1 is missing; install it with: apt-get install $2" >&2
    exit 1
}
need go golang-go
need protoc protobuf-compiler
need protoc-gen-go protoc-gen-go
need protoc-gen-go-grpc protoc-gen-go-grpc
LIBRARIES="golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev"
if [ ! -d "$LIBRARY_GOPATH/src/google.golang.org/grpc" ]; then
    echo "build.sh: gRPC for Go is missing from $LIBRARY_GOPATH; install it with:" \
         "apt-get install $LIBRARIES" >&2
    exit 1
fi
# gRPC encodes with github.com/golang/protobuf, which must be 1.4 or later (built on
# google.golang.org/protobuf) to encode the code protoc-gen-go generates.
if ! grep -qs "google.golang.org/protobuf" "$LIBRARY_GOPATH/src/github.com/golang/protobuf/proto/proto.go"; then
    echo "build.sh: $LIBRARY_GOPATH holds github.com/golang/protobuf 1.3, too old for" \
         "protoc-gen-go's code; install it with: apt-get install $LIBRARIES" >&2
    exit 1
fi
if [ ! -f "$PROTO_DIR/cardarena/v1/agent.proto" ]; then
    echo "build.sh: $PROTO_DIR/cardarena/v1/agent.proto not found (set CARDARENA_PROTO_DIR)" >&2
    exit 1
fi

# The protocol package, imported as "cardarena/agentpb".
mkdir -p "$WORK_GOPATH/src" bin
MAPPING="Mcardarena/v1/agent.proto=cardarena/agentpb;agentpb"
protoc -I "$PROTO_DIR" \
    --go_out="$WORK_GOPATH/src" --go_opt="$MAPPING" \
    --go-grpc_out="$WORK_GOPATH/src" --go-grpc_opt="$MAPPING" \
    cardarena/v1/agent.proto

# The bot's own packages, imported as "bot/...": this folder, seen from inside the GOPATH.
ln -sfn ../../.. "$WORK_GOPATH/src/bot"

# Go's shared build cache makes every build after the first quick; without one (no home
# folder), a cache in build/ does.
CACHE=${GOCACHE:-$(go env GOCACHE 2>/dev/null || true)}
case "$CACHE" in
    /*) mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] || CACHE="$BOT_DIR/build/go-cache" ;;
    *) CACHE="$BOT_DIR/build/go-cache" ;;
esac

cd "$WORK_GOPATH/src/bot"
env GO111MODULE=off GOFLAGS= GOENV=off CGO_ENABLED=0 \
    GOPATH="$WORK_GOPATH:$LIBRARY_GOPATH" GOCACHE="$CACHE" \
    go build -trimpath -ldflags "-s -w" -o "$BOT_DIR/build/bot" .
cd "$BOT_DIR"

# Replace the program only when it changed, so a build with nothing to do touches nothing.
if ! cmp -s build/bot bin/bot; then
    mv -f build/bot bin/bot
fi
