"""Telemetry every layer may use: the Prometheus metrics (``metrics``) and JSON-line logs
(``logs``). Neither needs the service: without ``prometheus_client`` the metrics count
nothing, and the logs stay as they were unless JSON lines are asked for."""
