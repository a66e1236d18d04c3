"""Tests of the Docker sandbox: images, containers, the probe, hostile bots."""
