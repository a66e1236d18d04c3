"""Generated protobuf and gRPC code of proto/cardarena/v1."""
