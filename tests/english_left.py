"""What of a German text is still English: the words that only an untranslated sentence holds.

Shared by the German tests of the CLI (test_i18n.py) and of the page (test_web_browser_german.py).
German words spelt like English ones ("in", "was", "die", "an", "Station") are not on the list.
"""

from __future__ import annotations

import re

ENGLISH = re.compile(
    r"\b(the|and|of|to|is|are|with|from|for|not|into|this|that|its|on|by|or|cubes?|tray|tower|drops?|battles?|wins?|"
    r"attacks?|supply|supplies|armies|army|players?|session|game|county|nothing|holds|expected|seen|takes|places|"
    r"back|round|event|nobody|immune|courtiers?|red|blue|yellow|purple|black|green|none|too|few|many|waiting|"
    r"host|release|undo|new|tie|odds|peasants|revolt|winter|correct|confirm|cancel|save|reading|page|"
    r"planned|counted|resolved|closed|releasing|released|phase)\b",
    re.IGNORECASE)
CODE = re.compile(r"`[^`]*`|--[\w-]+|\btower (?:\w+)(?: [\w-]+)*|images/\S+|\S+\.(?:jpg|png|py|json)\b|\bspielbyweb\b")
"""Commands, flags, file names and model names stay as they are in every language."""


def english_in(text: str) -> list[str]:
    """Each line of ``text`` that still holds an English word (commands and file names aside)."""
    return [line for line in text.splitlines() if ENGLISH.search(CODE.sub("", line))]
