"""Neo4j Community for tests and benchmarks: resolved from Maven Central, run on loopback.

``build`` installs a pinned release (Maven resolves it, javac compiles the
launcher); ``server`` starts and stops one launcher process. Nothing here is
part of the service: production talks to a Neo4j server (docker-compose.yml).
"""
