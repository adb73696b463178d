"""Background jobs: the in-process runner (embedded mode) and arq (server mode)."""
