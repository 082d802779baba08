"""The command line's help and argument errors in the person's language: argparse's own words and ours.

argparse asks for its own words ("usage: ", "options", "the following arguments are required: %s",
"%(prog)s: error: %(message)s") through the ``_`` and ``ngettext`` it imports from :mod:`gettext`,
that is from gettext's global domain, the hook Python leaves for an application's catalogue. gettext
fills that domain only from a compiled ``.mo`` file on disk (``bindtextdomain``); our catalogue is the
``.po`` file read in memory with Babel (no compiled file to keep in step, ``controller.i18n``), so
while one command runs argparse's two names point at that catalogue's ``gettext`` and ``ngettext``,
and are set back afterwards. Translating the printed help line by line instead would not do: argparse
wraps a sentence over several lines (a piece of a sentence matches no msgid) and aligns the wrapped
usage under its own prefix.

Our own words (descriptions, help texts, metavars, each sub-command's one-line help) are translated on
the built parser, before argparse lays them out, through the same catalogue (``translate``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from controller.i18n import gettext_for, translate

ARGPARSE_WORDS = ("_", "ngettext")
"""The names argparse imported from gettext and calls for each of its own words."""


@contextmanager
def argparse_speaks(lang: str) -> Iterator[None]:
    """argparse's own words from our catalogue in ``lang`` while the block runs (English: untouched)."""
    if lang == "en":
        yield
        return
    catalogue = gettext_for(lang)
    saved = {name: getattr(argparse, name) for name in ARGPARSE_WORDS if hasattr(argparse, name)}
    replacement = {"_": catalogue.gettext, "ngettext": catalogue.ngettext}
    for name in saved:
        setattr(argparse, name, replacement[name])
    try:
        yield
    finally:
        for name, original in saved.items():
            setattr(argparse, name, original)


def speak_parser(parser: argparse.ArgumentParser, lang: str) -> None:
    """Put every text of ``parser`` and of its sub-commands a person reads into ``lang``, in place."""
    if lang == "en":
        return
    _speak(parser, lang, set())


def _speak(parser: argparse.ArgumentParser, lang: str, done: set[int]) -> None:
    if id(parser) in done:  # an alias shares its parser with the command's name
        return
    done.add(id(parser))
    parser.description = _said(parser.description, lang)
    parser.epilog = _said(parser.epilog, lang)
    for group in parser._action_groups:
        group.title = _said(group.title, lang)
        group.description = _said(group.description, lang)
    for action in parser._actions:
        if action.help is not argparse.SUPPRESS:
            action.help = _said(action.help, lang)
        _speak_metavar(action, lang)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _said(choice.help, lang)
            for sub in action.choices.values():
                _speak(sub, lang, done)


def _speak_metavar(action: argparse.Action, lang: str) -> None:
    """The placeholder a usage line shows for a value (``--armies ARMIES``): argparse makes it from the
    English ``dest`` when none is given, so the German one is set here."""
    if action.nargs == 0 or isinstance(action.metavar, tuple) or action.choices is not None and action.metavar is None:
        return
    shown = action.metavar
    if shown is None:
        shown = action.dest.upper() if action.option_strings else action.dest
    said = translate(shown, lang)
    if said != shown:
        action.metavar = said


def _said(text: str | None, lang: str) -> str | None:
    return None if text is None else translate(text, lang)
