"""Thin resolvers: parse arguments, call a service, map the result to a schema type."""
