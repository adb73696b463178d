"""Readers of conversation files (LoCoMo, JSONL) into plain records."""
