"""Serving the tray photos without serving anything else.

The page shows the raw and annotated tray photos that the controller saved in its data directory.
The URL carries a path relative to that directory, so it is the one place where a visitor chooses a
file name; :func:`resolve_data_file` makes sure the name cannot leave the directory: no absolute
paths, no ``..`` (also after percent-decoding, which the web framework has already done), no
backslashes or NUL bytes, and after resolving symbolic links the file must still lie inside the
directory. Only image files are served, so the SQLite records beside them stay private.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
}


class NotServable(LookupError):
    """The requested path may not be served (outside the data directory, not an image, missing)."""


def resolve_data_file(data_dir: Path, relative: str) -> tuple[Path, str]:
    """The real path and media type of an image under ``data_dir``, or :class:`NotServable`.

    ``relative`` is the already-decoded path from the URL (``drops/7/annotated.png``).
    """
    if not relative or "\x00" in relative or "\\" in relative:
        raise NotServable("not a file name")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or relative.startswith("/") or ".." in pure.parts or ":" in pure.parts[0]:
        raise NotServable("the path must stay inside the data directory")
    media_type = IMAGE_TYPES.get(pure.suffix.lower())
    if media_type is None:
        raise NotServable("only images are served")
    root = data_dir.resolve()
    try:
        real = (root / pure).resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError, RuntimeError) as err:  # RuntimeError: a link loop
        raise NotServable("no such image") from err
    if not real.is_relative_to(root):
        raise NotServable("the path must stay inside the data directory")
    if not real.is_file():
        raise NotServable("no such image")
    if IMAGE_TYPES.get(real.suffix.lower()) != media_type:  # a link named .png to the records
        raise NotServable("only images are served")
    return real, media_type
