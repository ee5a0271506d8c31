"""Writes of the review app: ingest, candidates, hypotheses, queue decisions."""
