"""Recall on demand: the memories relevant to a question, ranked by BM25 over an incrementally
kept index."""
