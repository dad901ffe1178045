"""Evaluation: tournaments and statistics over the fast engine's results."""
