# Django ships no types and django-stubs is not installed (docs/conventions.md §8). The model
# choices are enums whose members are their values (a TextChoices member is a str): declared
# here so that ``reason: str = BeanEntry.Reason.SIGNUP_GRANT`` checks; every other name of
# django.db.models reads as Any.
import enum
from typing import Any, ClassVar

# (the misc ignores: mypy warns about enums declared in a stub without members; these are bases)
class Choices(enum.Enum):  # type: ignore[misc]
    # (value, label) of each member, for a field's ``choices``
    choices: ClassVar[list[tuple[Any, str]]]
    @property
    def label(self) -> str: ...

class TextChoices(str, Choices):  # type: ignore[misc]
    _value_: str
    @property
    def value(self) -> str: ...

class IntegerChoices(int, Choices):  # type: ignore[misc]
    _value_: int
    @property
    def value(self) -> int: ...

def __getattr__(name: str) -> Any: ...
