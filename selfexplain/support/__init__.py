"""Infrastructure shared by every layer, with no model and no result types: input limits, a byte-bounded
cache, JSON Lines records, resumable progress logs, private folders and malloc tuning.
"""
