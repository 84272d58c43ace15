from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "club"
    verbose_name = _("Club life")

    def ready(self) -> None:
        from club import (
            signals,  # noqa: F401  (the kept ratings dropped after a flush)
            sockets,
        )
        from club.selectors.ratings import seat_ratings
        from club.selectors.tables import languages_of, push_languages
        from club.services.outcomes import hand_finished_record
        from club.services.player_settings import player_language_settle
        from club.services.seasons import seasons_begin_due
        from club.services.suspensions import user_is_suspended
        from games.api import register

        register(
            user_may_sit=lambda *, user: not user_is_suspended(user=user),
            socket_language=player_language_settle,
            push_languages=push_languages,
            languages_of=languages_of,
            socket_opened=sockets.socket_opened,
            socket_closed=sockets.socket_closed,
            leases_expired=sockets.leases_expired,
            chat=sockets.chat,
            runner_round=seasons_begin_due,
            ratings_of=seat_ratings,
            hand_finished=hand_finished_record,
        )
