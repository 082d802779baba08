"""The web API's errors: the table's exceptions as HTTP answers that name the problem in words.

The table speaks English; ``in_language`` gives an answer's sentence in the page's language (the
browser's ``Accept-Language``), through the same catalogue the CLI uses.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError

from controller.i18n import language_from_header, translate
from controller.records import RecordsReadOnly
from controller.wording import for_page


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field
        self.extra = extra or {}


def table_error(err: Exception) -> ApiError:
    """Map the table's errors (which inherit the builtins a caller catches) onto HTTP statuses."""
    message = for_page(getattr(err, "message", None) or str(err) or type(err).__name__)
    field = getattr(err, "field", None)
    if isinstance(err, RecordsReadOnly):  # damaged records: nothing is written until the host acknowledges
        return ApiError(423, message, field)
    if isinstance(err, LookupError):
        return ApiError(404, message, field)
    if isinstance(err, ValueError):
        expected, seen = getattr(err, "expected", None), getattr(err, "seen", None)
        if isinstance(expected, dict) and isinstance(seen, dict):  # a TrayMismatch: the page offers the host's word
            return ApiError(409, message, field, {"tray_mismatch": {"expected": expected, "seen": seen}})
        return ApiError(400, message, field)
    if isinstance(err, TimeoutError | OSError | RuntimeError):
        return ApiError(503, message, field)
    return ApiError(500, message, field)


def invalid_request(err: RequestValidationError) -> tuple[str, str | None]:
    """A refused request's problem in words, naming the field but never repeating what was sent."""
    errors = err.errors()
    if not errors:
        return "the request is not valid", None
    first = errors[0]
    loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path", "header")]
    field = ".".join(loc)[:80] or None
    message = str(first.get("msg", "not valid"))[:200]
    return (f"{field}: {message}" if field else message), field


def in_language(request: Request, message: str) -> str:
    """``message`` in the language the request's browser asks for (English where the catalogue has none)."""
    return translate(message, language_from_header(request.headers.get("accept-language")))
