"""Issue 13, German: the pictures a German reader sees -- the tray photo's caption and the luck
report's plots -- are German, with the language's decimal comma, and English readers keep English.
The numbers of a translated text are put in the language's form (Babel on the server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageDraw

from controller.i18n import localise_number, translate
from controller.report import build_report, luck_figure, retention_figure
from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from vision.annotate import annotate
from vision.caption import caption_font, caption_text
from vision.reading import TrayReading


def german(text: str) -> str:
    return translate(text, "de")


# -- numbers -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("english", "in_german"), [
    ("47.4 %", "47,4 %"), ("2.3", "2,3"), ("-0.25", "-0,25"), ("+1.5", "+1,5"), ("\u22121.5", "\u22121,5"),
    ("20,000", "20.000"), ("1,234.5", "1.234,5"), ("12", "12"), ("0.90", "0,90")])
def test_an_english_number_is_written_the_german_way(english: str, in_german: str) -> None:
    assert localise_number(english, "de") == in_german
    assert localise_number(english, "en") == english


def test_the_numbers_of_a_translated_sentence_take_the_decimal_comma_and_english_keeps_its_point() -> None:
    odds = "Odds before the drop (spielbyweb, exact): red wins 47.4 %, tie 17.6 %, blue wins 35.0 %"
    assert german(odds).endswith("Rot gewinnt 47,4 %, Gleichstand 17,6 %, Blau gewinnt 35,0 %")
    assert german("simulated, 20,000 drops") == "simuliert, 20.000 Würfe"
    assert translate(odds, "en") == odds
    for not_a_number in ("0.1.0", "192.168.1.20", "22:00", "drop-000003-raw.png", "Wurf 3"):
        assert german(not_a_number) == not_a_number


# -- the tray photo's caption -----------------------------------------------------------------------
READ = TrayReading(True, None, {"red": 4, "blue": 6, "yellow": 0, "purple": 0, "black": 0, "green": 2},
                   {"red": 1}, 0.9, [])


def test_the_caption_is_german_for_a_german_reader_and_english_by_default() -> None:
    assert caption_text(READ) == "conf 0.90: red 4, blue 6, green 2, courtier red 1"
    assert caption_text(READ, german) == "Sicherheit 0,90: Rot 4, Blau 6, Grün 2, Höfling Rot 1"
    empty = TrayReading(True, None, {}, {}, 0.5, [])
    assert caption_text(empty, german) == "Sicherheit 0,50: leere Schale"
    lost = TrayReading.unusable("no plate markers found (ids 0-3): is the plate in view and lit?")
    assert caption_text(lost) == "UNUSABLE: no plate markers found (ids 0-3): is the plate in view and lit?"
    assert caption_text(lost, german) == ("UNBRAUCHBAR: keine Marker der Platte gefunden (Nummern 0-3): "
                                          "ist die Platte im Bild und beleuchtet?")


def test_the_caption_font_draws_german_letters_and_the_photo_shows_them() -> None:
    font = caption_font(40)

    def glyph(letter: str) -> bytes:
        image = Image.new("L", (60, 60))
        ImageDraw.Draw(image).text((5, 5), letter, font=font, fill=255)
        return image.tobytes()

    missing = glyph("\u0378")  # an unassigned code point: the font's "no glyph" box
    for letter, plain in zip("äöüÄÖÜß", "aouAOUB", strict=True):  # drawn, and with its dots
        assert glyph(letter) != missing and glyph(letter) != glyph(plain), letter
    frame = np.full((480, 640, 3), 128, np.uint8)
    english, in_german = annotate(frame, READ), annotate(frame, READ, german)
    assert english.shape == in_german.shape and (english != in_german).any()  # the caption follows the words


# -- the photo a German browser is shown ---------------------------------------------------------------
@pytest.fixture(scope="module")
def photographed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("simulation.synthetic_profile")
    data = tmp_path_factory.mktemp("camera") / "data"
    table = Table.open(data_dir=data, reader="camera")
    table.new_session(["red", "blue", "yellow"])
    drop = table.release(table.fill()["drop_id"])
    yield table, drop
    table.close()


def test_the_station_writes_the_photo_in_each_language_and_a_german_browser_gets_its_own(photographed: Any) -> None:
    table, drop = photographed
    english, in_german = drop["annotated"], drop["annotated_in"]["de"]
    assert english.endswith("-annotated.jpg") and in_german.endswith("-annotated-de.jpg")
    assert (table.data_dir / english).stat().st_size > 1000 and (table.data_dir / in_german).stat().st_size > 1000
    reading = [r for r in table.store.records(drop["drop_id"]) if r.kind == "reading"][-1]
    assert reading.images["annotated-de"]["path"] == in_german and len(reading.images["annotated-de"]["sha256"]) == 64
    app = create_app(table, table.data_dir, HostAccess("246810"))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        shown = {lang: client.get("/api/state", headers={"Accept-Language": header}).json()
                 for lang, header in (("en", "en-GB,en;q=0.9"), ("de", "de-DE,de;q=0.9"))}
    for lang, photo in (("en", english), ("de", in_german)):
        assert [v["annotated"] for v in shown[lang]["history"] if v["drop_id"] == drop["drop_id"]] == [photo]


# -- the luck report's plots ---------------------------------------------------------------------------
REPORT = {"cumulative": {"red": [(1, 0.5), (3, -1.25)], "blue": [(2, 1.0)], "green": [(1, -0.4), (2, 0.3)]},
          "retention": [{"dropped": 9, "came_out": 7, "inside_before": 3, "inside_after": 5, "held_back": 2},
                        {"dropped": 6, "came_out": 8, "inside_before": 5, "inside_after": 3, "held_back": -2}]}


def _texts(fig: Any) -> dict[str, Any]:
    ax = fig.axes[0]
    return {"title": ax.get_title(), "x": ax.get_xlabel(), "y": ax.get_ylabel(),
            "legend": [t.get_text() for t in ax.get_legend().get_texts()],
            "yticks": ax.yaxis.get_major_formatter().format_ticks(ax.get_yticks())}


def test_the_plots_speak_german_with_decimal_commas_for_a_german_reader() -> None:
    luck = _texts(luck_figure(REPORT, "de"))
    assert luck["title"].startswith("Glück im Lauf der Partie") and luck["x"] == "Wurf"
    assert luck["y"] == "Würfel heraus minus erwartet" and luck["legend"] == ["Rot", "Blau", "Bauern"]
    assert any("," in tick for tick in luck["yticks"]) and not any("." in tick for tick in luck["yticks"])
    kept = _texts(retention_figure(REPORT, "de"))
    assert kept["title"].startswith("Rückhalt") and kept["y"] == "Würfel"
    assert kept["legend"] == ["nach dem Wurf im Turm", "eingeworfen", "herausgefallen"]


def test_the_plots_stay_english_for_an_english_reader() -> None:
    luck = _texts(luck_figure(REPORT))
    assert luck["title"] == "Luck over the game: each side's cubes out of its battles, against the model"
    assert luck["x"] == "drop" and luck["y"] == "cubes out minus expected"
    assert luck["legend"] == ["red", "blue", "peasants"]
    assert any("." in tick for tick in luck["yticks"]) and not any("," in tick for tick in luck["yticks"])
    assert _texts(retention_figure(REPORT))["legend"] == ["inside the tower after the drop", "thrown in", "came out"]


def test_each_language_has_its_own_plot_files_and_the_page_asks_in_its_own(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Table.open(data_dir=data, reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        table.deploy("red", 5)
        table.deploy("blue", 5)
        table.release(table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 3, "defender": "blue",
                                  "defending_armies": 2})["drop_id"])
        records = table.store.records()
        english, in_german = build_report(records, data)["plots"], build_report(records, data, lang="de")["plots"]
        assert english["luck_png"] == "report/session-1-luck.png"
        assert in_german["luck_png"] == "report/session-1-luck-de.png"
        assert in_german["retention_svg"] == "report/session-1-retention-de.svg"
        assert all((data / path).stat().st_size > 1000 for path in (*english.values(), *in_german.values()))
        assert (data / english["luck_png"]).read_bytes() != (data / in_german["luck_png"]).read_bytes()
        app = create_app(table, table.data_dir, HostAccess("246810"))
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            asked = client.get("/api/report", headers={"Accept-Language": "de-DE,de;q=0.9"}).json()
            assert asked["plots"] == in_german
            assert client.get("/api/report").json()["plots"] == english
