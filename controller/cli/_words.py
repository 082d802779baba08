"""The CLI's output in the person's language: every line written to standard output and standard error
passes through the German catalogue (``controller.i18n.translate``) when ``LANG`` asks for German.

The sentences are made in English, here and in the packages the CLI calls (the session, the drop cycle,
the engine); translating them where they are written keeps one catalogue and no second copy of any
sentence. Machine output (``--json`` lines) matches no msgid and passes unchanged.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, TextIO

from rich.markup import escape

from controller.i18n import language_from_env, translate

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PROGRAM = re.compile(r"^(tower(?: [\w-]+)*: (?:error: )?)(.*)$", re.DOTALL)
"""An error line's "tower: " or "tower battle attack: error: " prefix: the program's name stays."""


class TranslatingStream:
    """A text stream that translates each whole line before passing it on (the rest is delegated)."""

    def __init__(self, stream: TextIO, lang: str) -> None:
        self._stream, self._lang, self._pending = stream, lang, ""
        self.verbatim = False  # what is written is already in the person's language (argparse's help)

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._stream.write(self.line(line) + "\n")
        return len(text)

    def line(self, line: str) -> str:
        if self.verbatim or line.lstrip().startswith(("{", "[")):  # said already, or a JSON line for a program
            return line
        program = _PROGRAM.match(line)
        if program:
            return program.group(1) + self.line(program.group(2))
        plain = _ANSI.sub("", line)
        if plain != line:  # styled by Rich: translated only as a whole (the styles go with the English)
            done = spoken_text(plain, self._lang)
            return done if done != plain else line
        return spoken_text(line, self._lang)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self.line(self._pending))
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def spoken(lang: str | None = None) -> Iterator[str]:
    """Standard output and error in ``lang`` (default: from ``LANG``) while the block runs."""
    lang = lang or language_from_env()
    if lang == "en":
        yield lang
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TranslatingStream(out, lang), TranslatingStream(err, lang)
    try:
        yield lang
    finally:
        for stream in (sys.stdout, sys.stderr):
            with suppress(BrokenPipeError, ValueError):  # a closed pipe or a closed capture: nothing to add
                stream.flush()
        sys.stdout, sys.stderr = out, err


@contextmanager
def as_written() -> Iterator[None]:
    """Standard output and error passed on unchanged while the block runs: for argparse, whose help and
    errors come out of the catalogue already (``controller.cli._help``); a second pass over a German line
    could only change what is right ("... 7 Rot?: tower" ending as "Turm")."""
    streams = [s for s in (sys.stdout, sys.stderr) if isinstance(s, TranslatingStream)]
    for stream in streams:
        stream.flush()
        stream.verbatim = True
    try:
        yield
    finally:
        for stream in streams:
            with suppress(BrokenPipeError, ValueError):
                stream.flush()
            stream.verbatim = False


def spoken_text(text: str, lang: str) -> str:
    """``text`` (English, already formatted) in ``lang``: its words through the catalogue, its decimal
    numbers as the language writes them (15,7 %), also inside text no msgid matched."""
    return translate(text, lang)


def say(text: str) -> str:
    """``text`` in the language ``LANG`` names: for words that are not written line by line (Rich
    tables and panels, whose cells and titles are laid out before they are printed)."""
    return spoken_text(text, language_from_env())


_MARKUP = re.compile(r"\[/?[a-z ]*\]")


def say_markup(text: str) -> str:
    """A Rich markup string in the language ``LANG`` names: where the catalogue knows the sentence, its
    translation replaces it whole (its colours and bold go with the English words)."""
    plain = _MARKUP.sub("", text)
    done = say(plain)
    return text if done == plain else escape(done)
