"""Issue 13: English and German from a standard gettext catalogue read with Babel, chosen per browser
(Accept-Language) for the page and per LANG for the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from controller.cli import main
from controller.i18n import LOCALE_DIR, language_from_env, language_from_header, messages, translations
from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app

REPO = Path(__file__).resolve().parent.parent


def test_the_german_catalogue_is_a_complete_po_file() -> None:
    with (LOCALE_DIR / "de" / "LC_MESSAGES" / "tower.po").open("rb") as fp:
        catalog = read_po(fp)
    entries = [m for m in catalog if m.id]
    assert len(entries) > 100
    assert all(m.string for m in entries), [m.id for m in entries if not m.string]
    for m in entries:  # placeholders survive the translation
        assert set(re.findall(r"\{\w+\}", str(m.id))) == set(re.findall(r"\{\w+\}", str(m.string))), m.id
    assert translations("de").gettext("New battle") == "Neue Schlacht"
    assert translations("en").gettext("New battle") == "New battle"
    assert translations("fr").gettext("New battle") == "New battle"


def test_every_static_word_of_the_page_has_a_german_translation() -> None:
    html = (REPO / "controller" / "web" / "static" / "index.html").read_text()
    shown = {w.strip() for w in re.findall(r">([^<>{}]+)<", html) if re.search("[A-Za-z]", w)}
    missing = shown - set(messages("de"))
    assert not missing, missing


@pytest.mark.parametrize(("header", "lang"), [("de-DE,de;q=0.9,en;q=0.8", "de"), ("de", "de"), ("fr-FR,fr;q=0.9", "en"),
                                              ("en-GB,de;q=0.5", "en"), ("fr;q=0.9,de-AT;q=0.8", "de"), (None, "en")])
def test_the_page_language_follows_the_browser(header: str | None, lang: str) -> None:
    assert language_from_header(header) == lang


@pytest.mark.parametrize(("env", "lang"), [({"LANG": "de_DE.UTF-8"}, "de"), ({"LANG": "en_US.UTF-8"}, "en"),
                                           ({"LANG": "C.UTF-8"}, "en"), ({"LC_ALL": "de_AT.UTF-8", "LANG": "en_US"}, "de"),
                                           ({"LANGUAGE": "fr:de", "LANG": "fr_FR"}, "en"), ({}, "en")])
def test_the_cli_language_follows_lang(env: dict[str, str], lang: str) -> None:
    assert language_from_env(env) == lang


def test_the_api_sends_the_page_its_words(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        app = create_app(table, table.data_dir, HostAccess("735102"))
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            german = client.get("/api/i18n", headers={"Accept-Language": "de-DE,de;q=0.9"})
            assert german.json()["lang"] == "de" and german.json()["messages"]["New battle"] == "Neue Schlacht"
            assert "Accept-Language" in german.headers["vary"]
            english = client.get("/api/i18n", headers={"Accept-Language": "en-US"}).json()
            assert english == {"lang": "en", "messages": {}}
            assert client.get("/api/i18n?lang=de").json()["lang"] == "de"


def test_the_cli_speaks_german_under_a_german_lang(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    d = ["--data-dir", str(tmp_path)]
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert main(["session", "new", "--players", "red,blue,yellow", "--emperors-court", *d]) == 0
    out = capsys.readouterr().out
    assert "Partie 1 begonnen: Rot, Blau, Gelb mit dem Kaiserhof" in out and "Wo jeder Würfel ist" in out
    assert main(["session", "end", *d]) == 0
    assert "Das Ende der Partie (Partie 1)" in capsys.readouterr().out
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert main(["status", *d]) == 0
    assert "Where every cube is" in capsys.readouterr().out
