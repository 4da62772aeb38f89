"""Sharpness and decisiveness of alpha (docs/sharpness.md)."""
