"""English and German: a standard gettext message catalogue, read with Babel.

The catalogues are ``controller/locale/<lang>/LC_MESSAGES/tower.po`` (the msgid is the English
text). Babel reads a ``.po`` file and turns it into a ``gettext.GNUTranslations`` object in
memory, so there is no compiled file to keep in step. The CLI's language comes from ``LANGUAGE``,
``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` (as gettext looks them up); the page's from the browser's
``Accept-Language``, negotiated with Babel. A text without a translation stays English.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
from pathlib import Path

from babel.core import Locale, UnknownLocaleError, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "tower"
LANGUAGES = ("en", "de")
"""English (the msgids) and the catalogues shipped."""


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalogue for ``lang`` ("de"), or English (no translation) for any other."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == "en" or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as fp:
        catalog = read_po(fp, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def messages(lang: str) -> dict[str, str]:
    """Every translated message of ``lang`` as {English: translation} (what the page loads)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == "en" or not path.exists():
        return {}
    with path.open("rb") as fp:
        catalog = read_po(fp, locale=lang, domain=DOMAIN)
    return {str(m.id): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}


def language_from_env(environ: dict[str, str] | None = None) -> str:
    """The CLI's language: the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is set, as gettext
    reads them (``de_DE.UTF-8`` -> "de"); English where none names a language we have."""
    env = os.environ if environ is None else environ
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("@")[0]
            if code in ("C", "POSIX"):
                return "en"
            try:
                lang = Locale.parse(code).language
            except (ValueError, UnknownLocaleError):
                continue
            return lang if lang in LANGUAGES else "en"
    return "en"


def language_from_header(accept_language: str | None) -> str:
    """The page's language from the browser's ``Accept-Language`` (Babel's negotiation)."""
    if not accept_language:
        return "en"
    wanted = []
    for item in accept_language.split(","):
        tag, _, q = item.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        if tag and weight > 0:
            wanted.append((weight, tag.strip().replace("-", "_")))
    wanted.sort(key=lambda w: -w[0])
    return negotiate_locale([t for _, t in wanted], list(LANGUAGES), sep="_") or "en"


def gettext_for(lang: str) -> gettext.NullTranslations:
    return translations(lang if lang in LANGUAGES else "en")


def _(message: str) -> str:
    """The CLI's translation of ``message`` in the language of the environment."""
    return gettext_for(language_from_env()).gettext(message)
