"""The ArenaService gRPC API: accounts, bot uploads, leagues, watching and results."""
