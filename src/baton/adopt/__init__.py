"""Adopting Baton: `baton init` writes a repository's setup, `baton doctor` checks it."""
