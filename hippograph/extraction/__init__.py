"""From raw messages to structured memory: segmentation, extraction, importance.

The steps that need no model are pure functions here; the ones that do take
an ``Embedder`` or an ``LLM`` port. The offline extractor implements the LLM
port with sentence selection and rules, so everything works with no network.
"""
