"""The issue as Baton's storage: the record comment's format, loading it, applying a decision."""
