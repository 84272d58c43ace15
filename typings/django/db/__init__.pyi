# Django ships no types and django-stubs is not installed (docs/conventions.md §8): every name
# of Django reads as Any, except the model choices enums declared in db/models.
from typing import Any

def __getattr__(name: str) -> Any: ...
