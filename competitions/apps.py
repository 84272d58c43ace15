from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompetitionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "competitions"
    verbose_name = _("Competitions")

    def ready(self) -> None:
        from accounts.audit import register_check
        from competitions import audit, hidden, pages, runner, signals  # noqa: F401
        from games.api import register

        register(
            may_watch=hidden.may_watch,
            hidden_hands=hidden.hidden_hands,
            table_banner=pages.table_banner,
            lobby_banner=pages.lobby_banner,
            due_work=runner.run_due,
        )
        register_check(audit.check_events)
