"""The plain data the rules read and write: events, the record, the decision, the
work product, an agent's result and changeset, the epic's memory. No rule lives here."""
