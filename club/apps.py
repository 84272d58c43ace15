from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "club"
    verbose_name = _("Club life")

    def ready(self) -> None:
        from club import (
            services,
            signals,  # noqa: F401  (hand outcomes, language preference)
            sockets,
        )
        from club.selectors.ratings import seat_ratings
        from club.selectors.tables import languages_of, push_languages
        from games.table.hooks import register

        register(
            user_may_sit=lambda *, user: not services.user_is_suspended(user=user),
            socket_language=services.player_language_settle,
            push_languages=push_languages,
            languages_of=languages_of,
            socket_opened=sockets.socket_opened,
            socket_closed=sockets.socket_closed,
            leases_expired=sockets.leases_expired,
            chat=sockets.chat,
            runner_round=services.seasons_begin_due,
            ratings_of=seat_ratings,
        )
