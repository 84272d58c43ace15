#!/bin/sh
# The nightly database dump (deploy/ddz-backup.timer): pg_dump's custom format (compressed,
# restorable table by table with pg_restore), written under a temporary name and renamed when
# complete, and dumps older than DDZ_BACKUP_DAYS days deleted. Check that a dump restores with
# `manage.py restore_check FILE` (README "Running it").
set -eu
dir="${DDZ_BACKUP_DIR:-/var/backups/ddz}"
days="${DDZ_BACKUP_DAYS:-14}"
mkdir -p "$dir"
file="$dir/ddz-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump --format=custom --no-owner --dbname="$DATABASE_URL" --file="$file.partial"
mv "$file.partial" "$file"
find "$dir" -name 'ddz-*.dump' -mtime +"$days" -delete
echo "$file"
