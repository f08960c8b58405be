"""Workflows as data: the model, its load-time checks, the config, the presets and diagrams."""
