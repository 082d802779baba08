"""Errors raised by the vision package, each inheriting the builtin a caller would catch."""

from __future__ import annotations


class UnreadableImage(ValueError, OSError):
    """An image file that cannot be decoded: missing, empty, corrupt or truncated.

    It is both a ``ValueError`` (the bytes are bad) and an ``OSError`` (reading a file failed), so a
    caller that guards file access or value parsing catches it either way.
    """


class ProfileError(ValueError):
    """A colour profile file that is corrupt, foreign, of an unknown version or inconsistent."""
