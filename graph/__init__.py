"""The graph layer: the only place with Cypher.

One store over the async ``neo4j`` driver serves both servers (embedded
ArcadeDB and Neo4j 5); what differs between them is the index dialect alone.
"""
