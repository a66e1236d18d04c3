"""Conformance tests that every registered game configuration passes unchanged."""
