"""What every app may import of the site: append-only rows, the read-only admin, metrics, logs,
the client's address. No module here imports the project (append_only only names the apps'
trigger migrations, which flush loads), so it stands below every app, while ddz_site, which
wires the apps together and which nothing imports, stands above them all
(docs/architecture.md §1)."""
