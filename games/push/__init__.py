"""After commit: what the services recorded in a transaction's outbox becomes one push per
table, rendered from one snapshot and sent to each audience's group."""
