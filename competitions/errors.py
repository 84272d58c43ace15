"""Refusals of the event services: a stable code and a translated message."""

from __future__ import annotations

import enum

from django.utils.translation import gettext_lazy as _


class EventCode(enum.Enum):
    CLOSED = "closed"
    FULL = "full"
    ALREADY = "already"
    NOT_ENTERED = "not_entered"
    BEANS = "beans"
    NOT_ARENA = "not_arena"
    OVER = "over"
    SUSPENDED = "suspended"


MESSAGES = {
    EventCode.CLOSED: _("Registration for this event is closed."),
    EventCode.FULL: _("This event is full."),
    EventCode.ALREADY: _("You are registered already."),
    EventCode.NOT_ENTERED: _("You are not registered for this event."),
    EventCode.BEANS: _("You need %(fee)s beans for the entry fee."),
    EventCode.NOT_ARENA: _("Only an arena can be paused."),
    EventCode.OVER: _("This event is over."),
    EventCode.SUSPENDED: _("Your account is suspended."),
}


class EventRefused(Exception):
    def __init__(self, code: EventCode, **params: object) -> None:
        self.code = code
        message = str(MESSAGES[code])
        self.message = message % params if params else message
        super().__init__(f"{code.value}: {self.message}")
