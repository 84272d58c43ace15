"""The cached title ladder is dropped whenever a Title changes (a cache, no write; the sign-up
grant is the sign-up adapter's call, accounts.adapters)."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_migrate, post_save

from accounts.models import Title
from accounts.selectors import title_ladder_clear

post_save.connect(title_ladder_clear, sender=Title, dispatch_uid="accounts.title_ladder_save")
post_delete.connect(title_ladder_clear, sender=Title, dispatch_uid="accounts.title_ladder_delete")
# a flush (transactional tests) or migration may empty or reseed the table
post_migrate.connect(title_ladder_clear, dispatch_uid="accounts.title_ladder_migrate")
