"""``arena sandbox audit``: the sandbox's security self-tests, run against this machine's
Docker engine with hostile bots shipped in the package (no source tree needed)."""

from arena.audit.promises import Promise, run_audit

__all__ = ["Promise", "run_audit"]
