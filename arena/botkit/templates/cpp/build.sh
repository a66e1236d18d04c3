#!/bin/sh
# Builds bin/bot and bin/lib/ from the .cc files and agent.proto; quick when nothing changed.
# CARDARENA_PROTO_DIR: the folder holding cardarena/v1/agent.proto (default: proto).
set -eu
cd "$(dirname "$0")"

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "error: $1: not found (apt-get install $2)" >&2
        exit 1
    fi
}
need make make
need g++ g++
need pkg-config pkg-config
need protoc protobuf-compiler
need grpc_cpp_plugin protobuf-compiler-grpc
if [ ! -f build/packages.mk ] && ! pkg-config --exists grpc++ protobuf; then
    echo "error: the gRPC C++ libraries are missing" \
        "(apt-get install libgrpc++-dev libprotobuf-dev)" >&2
    exit 1
fi

exec make -j"$(nproc 2>/dev/null || echo 2)" PROTO_DIR="${CARDARENA_PROTO_DIR:-proto}"
