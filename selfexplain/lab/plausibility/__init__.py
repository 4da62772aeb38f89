"""Plausibility: how far explanations agree with human rationales (kept apart from faithfulness)."""
