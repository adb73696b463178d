"""Adapters: the ports implemented over real libraries (sentence-transformers, HTTP LLMs)."""
