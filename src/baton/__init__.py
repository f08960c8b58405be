"""Baton: walks GitHub issues through a state machine of AI-agent work, with humans in the loop."""

__version__ = "0.1.0"
