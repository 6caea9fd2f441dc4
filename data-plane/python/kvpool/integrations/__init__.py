"""Adapters of the kvpool client to inference engines."""
