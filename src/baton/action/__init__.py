"""The GitHub Action: its commands, environment, outputs, job summary and the fast path."""
