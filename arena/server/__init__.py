"""The arena as a service: the API, uploads and web pages."""
