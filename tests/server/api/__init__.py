"""Tests of the ArenaService gRPC API, its accounts and the remote commands."""
