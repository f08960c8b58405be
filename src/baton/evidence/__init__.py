"""Evidence: `baton verify` runs the repository's tests and writes what they showed."""
