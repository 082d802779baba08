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
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from babel.core import Locale, UnknownLocaleError, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

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
    return {m.id: str(m.string) for m in catalog
            if isinstance(m.id, str) and m.id and m.string and not m.fuzzy}  # a plural entry is gettext's alone


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


# -- sentences made elsewhere ------------------------------------------------------------------------
# The engine, the session and the drop cycle speak English: their sentences reach the CLI and the page
# already formatted ("red wins the attack, 3 against 2 in the tray."). Their msgids are kept with
# {placeholders}; a formatted sentence is matched against them, and what filled a placeholder (a colour,
# a count, a smaller sentence) is translated the same way. A sentence that matches no msgid is cut at
# its separators ("; ", ". ", ": ", ", ", " and ") and each piece translated; what still matches
# nothing stays English (the catalogue tests walk the messages so that nothing does).

PLACEHOLDER = re.compile(r"\{(\w+)\}")
NUMBER = r"-?\d[\d.,]*"
"""What a placeholder named ``{n}``, ``{m}``, ``{k}`` or ``{n_...}`` matches: a number, so that the words
around it ("the peasants 2.7") are told apart from it."""
SEPARATORS = ("\n", " · ", "; ", ". ", ": ", ", ", " and ", " -> ", " (", ")")
"""Where a sentence that matches no msgid is cut into pieces, widest first (the page uses the same list)."""


@dataclass(frozen=True)
class _Template:
    pattern: re.Pattern[str]
    names: tuple[str, ...]
    translation: str


@functools.cache
def _catalogue(lang: str) -> tuple[dict[str, str], tuple[_Template, ...]]:
    exact: dict[str, str] = {}
    templates: list[tuple[tuple[int, int], _Template]] = []
    for msgid, msgstr in messages(lang).items():
        names = tuple(PLACEHOLDER.findall(msgid))
        if not names:
            exact[msgid] = msgstr
            continue
        if len(set(names)) != len(names):
            continue  # a placeholder used twice cannot be a regex group twice; such msgids are only gettext's
        regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>{_group(part)})"
                        for i, part in enumerate(PLACEHOLDER.split(msgid)))
        # Tried first: a msgid fixed at both ends ("drop {n}: {text}" before "{kind} against {defender}"),
        # then the one with the most fixed words.
        anchored = (not msgid.startswith("{")) + (not msgid.endswith("}"))
        literal = len(PLACEHOLDER.sub("", msgid))
        templates.append(((anchored, literal), _Template(re.compile(regex, re.DOTALL), names, msgstr)))
    templates.sort(key=lambda t: (-t[0][0], -t[0][1]))
    return exact, tuple(t for _, t in templates)


WIDE = frozenset({"text", "round", "hint", "reason", "why", "doubt", "what"})
"""Placeholders that may hold whole clauses ("a: b; c"); any other stops at a "; " or ": ", so that
"event: {event}" takes one clause of the round's settings and not the rest of the line."""


def _fill(translation: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda p: values.get(p.group(1), p.group(0)), translation)


def _group(name: str) -> str:
    if name in ("n", "m", "k") or name.startswith("n_"):
        return NUMBER
    return ".+?" if name in WIDE else r"(?:(?!; |: ).)+?"


ENGLISH_NUMBER = re.compile(
    r"(?P<sign>[+\-\u2212]?)(?P<whole>[1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?(?P<unit>\s?%)?")
"""A number as the English sentences write it: "2.3", "-0.25", "+1.5", "20,000", "47.4 %" (matplotlib's
ticks write the minus as U+2212). A group never starts with 0, so a German "0,144" is not read as 144."""


def localise_number(text: str, lang: str) -> str | None:
    """``text``, a number in English form, in ``lang``'s form with as many decimals ("2.3" -> "2,3",
    "20,000" -> "20.000", Babel's symbols for the language); None where ``text`` is not such a number.
    A whole number without grouping ("12") is the same in every language we have and stays as written."""
    m = ENGLISH_NUMBER.fullmatch(text)
    if m is None:
        return None
    frac = m["frac"] or ""
    if not frac and "," not in m["whole"]:
        return text
    value = Decimal(m["whole"].replace(",", "") + (f".{frac}" if frac else ""))
    pattern = "#,##0" + (f".{'0' * len(frac)}" if frac else "")
    return m["sign"] + format_decimal(value, format=pattern, locale=lang) + (m["unit"] or "")


def translate(text: str, lang: str) -> str:
    """``text`` (English, already formatted) in ``lang``, through the catalogue's exact and {placeholder}
    msgids, its numbers in the language's form ("47.4 %" -> "47,4 %"); names the catalogue lacks and
    anything in English stay as they are."""
    if lang not in LANGUAGES or lang == "en" or not text or not text.strip():
        return text
    exact, templates = _catalogue(lang)
    return _translate(text, exact, templates, 0, lang)


DECIMAL = re.compile(r"(?<![\w./])\d+\.(\d+)(?![\w/]|\.\d)")
"""A decimal number as the English sentences write it (15.7, 0.05): not part of a word, a path, a
version or an address (1.2.3, 127.0.0.1), which stay as they are."""


def _local_decimals(text: str, lang: str) -> str:
    """Each decimal number inside ``text`` that no msgid matched, written as ``lang`` writes it (German
    15,7 and 1.234,5), with as many decimals as the English had; whole numbers stay as written."""
    return DECIMAL.sub(lambda m: localise_number(m.group(0), lang) or m.group(0), text)


def _translate(text: str, exact: dict[str, str], templates: tuple[_Template, ...], depth: int, lang: str) -> str:
    if text in exact:
        return exact[text]
    core = text.strip()
    if not core or depth > 60:
        return text
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    if core in exact:
        return lead + exact[core] + trail
    number = localise_number(core, lang)  # a number alone, or what filled a {n} of a sentence
    if number is not None:
        return lead + number + trail
    for template in templates:
        m = template.pattern.fullmatch(core)
        if m:
            values = {k: _translate(v, exact, templates, depth + 1, lang) for k, v in m.groupdict().items()}
            return lead + _fill(template.translation, values) + trail
    lower = core[:1].lower() + core[1:]  # "Red" on a button: the catalogue's "red", capitalised again
    if lower != core and lower in exact:
        done = exact[lower]
        return lead + done[:1].upper() + done[1:] + trail
    count = re.fullmatch(r"(\d+) (.+)", core)  # "3 red": a count of something the catalogue names
    if count and count.group(2) in exact:
        return f"{lead}{count.group(1)} {exact[count.group(2)]}{trail}"
    tally = re.fullmatch(r"(.+) (\d+)", core)  # "revolt 10": something the catalogue names, counted
    if tally and tally.group(1) in exact:
        return f"{lead}{exact[tally.group(1)]} {tally.group(2)}{trail}"
    valued = re.fullmatch(r"(.+) (\S+)", core)  # "p_new 0.667": a name and its value, a decimal
    if valued and localise_number(valued.group(2), lang) not in (None, valued.group(2)):
        name = _translate(valued.group(1), exact, templates, depth + 1, lang)
        return f"{lead}{name} {localise_number(valued.group(2), lang)}{trail}"
    for sep in SEPARATORS:
        if sep in core:
            pieces = core.split(sep)
            said = [_translate(p, exact, templates, depth + 1, lang) for p in pieces]
            if said != [_local_decimals(p, lang) for p in pieces]:  # words translated, not only numbers
                return lead + exact.get(sep, sep).join(said) + trail
    return _local_decimals(text, lang)  # nothing matched: the words stay, the decimals take the language's form
