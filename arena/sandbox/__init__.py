"""The sandbox: Docker images built offline and hardened containers for untrusted bots."""
