"""Issue 13: the command line in German, completely. Under a German ``LANG`` every command's help (argparse's
own words included), its argument errors and the output of each command a person reads at the table are
German, with a decimal comma; under ``LANG=C`` all of it stays English, byte for byte."""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from english_left import english_in

import vision.annotate
from controller.cli import build_parser, main
from controller.cli._help import argparse_speaks, speak_parser
from controller.cli._words import spoken_text
from controller.i18n import translate

REPO = Path(__file__).resolve().parent.parent
GERMAN = "de_DE.UTF-8"
COLOURS = ("red", "blue", "yellow", "purple", "black", "green")


@pytest.fixture
def german(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LANG", GERMAN)
    monkeypatch.setenv("COLUMNS", "100")


def said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run one command in this process: its exit status and everything it wrote (standard output, then error)."""
    try:
        code = main(list(argv))
    except SystemExit as stop:  # --help and argument errors end in argparse's exit
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield prefix
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from command_paths(sub, (*prefix, name))


def sub_parser(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser:
    for name in path:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return parser


COMMANDS = sorted({name for path in command_paths(build_parser()) for name in path})
STAYS = [
    re.compile(r"^\s*[{\[].*$"),  # a JSON line is for programs (`calibrate check`, `export --drops -`)
    re.compile(r"^tower(?: [\w-]+)*: "),  # the program's name before its message
    re.compile(r"\btower(?= \[)|\btower$"),  # ... in a usage line, or a command wrapped after its first word
    re.compile(r"\S*/\S*"),  # a path, a file or a URL
    re.compile(r"[\w.-]+\.(?:toml|md|csv|jsonl|svg|pdf)\b"),  # a file's name
    re.compile(r"\bX-[\w-]+"),  # an HTTP header's name
    re.compile(r"'[^']*'"),  # a value as typed, a choice argparse lists
    re.compile(r"\b\w+=[\w|]+(?:,\w+(?:=[\w|]+)?)*"),  # COLOUR=N values as typed (red=7, red=A,blue=both)
    re.compile(r"\b[a-z_]+(?:,[a-z_]+)+\b"),  # a comma list as typed (red,blue,yellow)
    re.compile(r"^\s{2,}(?:" + "|".join(map(re.escape, sorted(COMMANDS, key=len, reverse=True))) + r")(?=\s|$)",
               re.MULTILINE),  # a sub-command's name in a help's list
]
"""What stays as typed in every language, taken out before looking for English words."""


def english_left_in(text: str) -> list[str]:
    """The lines of ``text`` that still hold an English word, once what a person types is taken out."""
    kept = []
    for line in text.splitlines():
        for pattern in STAYS:
            line = pattern.sub("", line)
        kept.append(line)
    return english_in("\n".join(kept))


DECIMAL_POINT = re.compile(r"(?<![\w./])\d+\.\d+(?![\w/]|\.\d)")


def decimal_points(text: str) -> list[str]:
    """Numbers written with a decimal point in the lines a person reads (JSON and paths aside)."""
    return [line for line in text.splitlines()
            if not line.lstrip().startswith(("{", "[")) and DECIMAL_POINT.search(re.sub(r"\S*/\S*", "", line))]


# -- the help ------------------------------------------------------------------------------------------------


def test_every_commands_help_is_german(german: None, capsys: pytest.CaptureFixture[str]) -> None:
    paths = list(dict.fromkeys(command_paths(build_parser())))
    assert len(paths) > 40  # every command and sub-command (not an empty walk)
    for path in paths:
        code, text = said(capsys, *path, "--help")
        assert code == 0, text
        assert text.startswith("Aufruf: tower") and "Optionen:" in text and "-h, --help  " in text, text
        assert "diese Hilfe zeigen und beenden" in text
        assert not english_left_in(text), f"tower {' '.join(path)} --help:\n" + "\n".join(english_left_in(text))


def test_every_help_text_of_the_parser_has_german() -> None:
    """Each description, help text and value placeholder the parser holds has a translation of its own (so a
    new option without one fails here, not at the table)."""
    missing = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        for text in (parser.description, parser.epilog):
            if text and translate(text, "de") == text:
                missing.add(text)
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS and translate(action.help, "de") == action.help:
                missing.add(action.help)
            if isinstance(action, argparse._SubParsersAction):
                missing.update(c.help for c in action._choices_actions if c.help and translate(c.help, "de") == c.help)
                for sub in action.choices.values():
                    walk(sub)
            elif action.nargs != 0 and action.choices is None:
                shown = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
                if shown not in ("A|B", "PIN", "NAME", "FORMAT", "PORT", "DPI") and translate(str(shown), "de") == shown:
                    missing.add(str(shown))

    walk(build_parser())
    assert not missing, sorted(missing)


def test_the_help_is_printed_as_argparse_laid_it_out(german: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The German help is what the translated parser formats, not changed again on its way out (a line
    ending in the command "tower" once became "Turm")."""
    with argparse_speaks("de"):
        parser = build_parser()
        speak_parser(parser, "de")
        for path in [("answer",), ("battle", "attack"), ("session", "round"), ()]:
            assert said(capsys, *path, "--help")[1] == sub_parser(parser, *path).format_help()


def test_the_usage_keeps_its_alignment_under_the_german_prefix(german: None, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = said(capsys, "battle", "attack", "--help")
    usage = text.split("\n\n")[0].splitlines()
    assert len(usage) > 1 and usage[0].startswith("Aufruf: tower battle attack [-h] --attacker ANGREIFER --armies ARMEEN")
    indent = len("Aufruf: tower battle attack ")
    assert all(line.startswith(" " * indent) and line[indent] == "[" for line in usage[1:]), usage


def test_argument_errors_are_german(german: None, capsys: pytest.CaptureFixture[str]) -> None:
    errors = [said(capsys, "battle", "attack"), said(capsys, "battle", "attack", "--attacker", "red", "--armies", "drei"),
              said(capsys, "tray", "show"), said(capsys, "status", "--farbe", "rot"), said(capsys, "session"),
              said(capsys, "session", "round", "--immune", "red=C"),
              said(capsys, "battle", "attack", "--attacker", "red", "--armies", "2", "--action", "C")]
    assert [code for code, _ in errors] == [2, 2, 2, 2, 0, 2, 2]
    texts = [text for _, text in errors]
    assert "tower battle attack: Fehler: diese Argumente fehlen: --attacker, --armies" in texts[0]
    assert "Fehler: Argument --armies: ungültiger Wert (int): 'drei'" in texts[1]
    assert "Fehler: Argument <Aktion>: ungültige Wahl: 'show' (möglich sind 'add', 'confirm', 'set')" in texts[2]
    assert "unbekannte Argumente: --farbe rot" in texts[3]
    assert "Aufruf: tower session [-h] <Aktion> ..." in texts[4]  # a command group alone shows its help
    assert "Fehler: Argument --immune: erwartet SPIELER=A, SPIELER=B oder SPIELER=both" in texts[5]
    assert "Fehler: Argument --action: die Aktionskarte ist A oder B (Kampf/Bewegung A oder B)" in texts[6]
    for text in texts:
        assert not english_left_in(text), english_left_in(text)


# -- what the commands print ---------------------------------------------------------------------------------


def test_a_game_at_the_table_is_german_with_decimal_commas(german: None, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    d = ("--data-dir", str(tmp_path / "data"))
    steps = [
        ("session", "new", "--players", "red,blue,yellow", "--emperors-court", *d),
        ("status", *d),
        ("session", "round", "--event", "churches_safe", "--attack-bonus", "red", "--defence-bonus", "blue",
         "--immune", "yellow=A", *d),
        ("fill", "--yes", *d),
        ("session", "deploy", "--player", "red", "--armies", "5", *d),
        ("battle", "attack", "--attacker", "red", "--armies", "-3", *d),
        ("battle", "attack", "--attacker", "red", "--armies", "3", "--defender", "blue", "--defending", "2", "--yes", *d),
        ("court", "convert", "--player", "red", "--cubes", "1", *d),
        ("court", "return", "--player", "red", "--courtiers", "1", *d),
        ("tray", "add", "--player", "blue", "--armies", "2", "--card", "3", *d),
        ("tray", "confirm", "--who", "host", *d),
        ("session", "parry", "--player", "red", *d),
        ("session", "undo", "--who", "anna", *d),
        ("status", *d),
        ("log", *d),
        ("log", "verify", *d),
        ("export", "--drops", str(tmp_path / "drops.csv"), *d),
        ("report", *d),
        ("session", "end", *d),
        ("session", "new", "--players", "red,blue,purple", *d),  # the simulated hands empty a used tower
    ]
    everything = []
    for argv in steps:
        code, text = said(capsys, *argv)
        assert code in (0, 1, 2), text
        assert not english_left_in(text), f"tower {' '.join(argv)}:\n" + "\n".join(english_left_in(text))
        assert not decimal_points(text), decimal_points(text)
        everything.append(text)
    out = "\n".join(everything)
    assert re.search(r"Chancen vor dem Wurf \(spielbyweb, exakt\): Rot gewinnt \d+,\d %", out), out
    assert re.search(r"Sicherheit \d,\d\d", out) and re.search(r"p-Wert.*\n(?:.*\n)*.*\b0,\d{3}\b", out)
    assert "der Trichter öffnet sich" in out and "die Würfel sind gefallen" in out  # the release's records in words
    assert "Gastgeber verbürgt sich" in out  # the page's default corrector, said as the role
    assert re.search(r"Die simulierten Hände haben Turm, Schale und Trichter geleert \(\d+ Rot, ", out), out
    assert "{'" not in out and "None" not in out  # what was taken out, in words, not as Python writes it
    assert (tmp_path / "data" / "report" / "session-1-luck-de.png").is_file()  # the report's plots in German


def test_the_stored_name_of_the_default_corrector_stays_host(german: None, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    d = ("--data-dir", str(tmp_path))
    said(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    said(capsys, "tray", "confirm", "--who", "host", *d)
    _, shown = said(capsys, "log", *d)
    assert "Gastgeber verbürgt sich: die Schale enthält" in shown
    _, stored = said(capsys, "log", "--json", *d)
    assert [json.loads(line)["payload"]["who"] for line in stored.splitlines() if '"tray_confirmed"' in line] == ["host"]


def test_hw_check_is_german(german: None, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    # one table row per line: the simulated world's file path is as long as the checkout's, and a path broken
    # across two lines ("sim-world.js" / "on)") would leave a fragment that reads as an English word
    monkeypatch.setenv("COLUMNS", "300")
    code, text = said(capsys, "hw", "check")
    assert code == 0, text
    assert "Gerät" in text and "Servo-Schwenk" in text and "alle Geräte bestanden" in text
    assert re.search(r"\d,\d\d s", text) and not decimal_points(text)
    assert not english_left_in(text), english_left_in(text)


def test_refusals_of_the_station_config_and_the_pin_are_german(german: None, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "number.toml").write_text('[funnel]\nmin_angle = "x"\n')
    (tmp_path / "key.toml").write_text("[funnel]\nbogus = 1\n")
    texts = [said(capsys, "hw", "check", "--config", str(tmp_path / name)) for name in ("number.toml", "key.toml", "none.toml")]
    texts += [said(capsys, "serve", "--pin", "12"), said(capsys, "serve", "--port", "0")]
    assert [code for code, _ in texts] == [2, 2, 2, 2, 2]
    shown = [text for _, text in texts]
    assert "Fehler in der Konfiguration: " in shown[0] and "funnel.min_angle: 'x' ist keine Zahl" in shown[0]
    assert "funnel.bogus: unbekannter Schlüssel (bekannt: backend, " in shown[1]
    assert "diese Konfigurationsdatei gibt es nicht" in shown[2]
    assert "tower serve: die PIN muss aus 6 bis 12 Buchstaben oder Ziffern bestehen" in shown[3]
    assert "tower serve: --port 0 ist kein TCP-Port" in shown[4]
    for text in shown:
        assert not english_left_in(text), english_left_in(text)


@pytest.fixture(scope="module")
def calibrated(tray_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """The calibrate-colours command's arguments for the rendered shots, and where its profile goes."""
    cal = tray_dev / "calibration"
    profile = tmp_path_factory.mktemp("german") / "profile.json"
    argv = ["calibrate", "colours", "--empty", str(cal / "empty.jpg"), "--out", str(profile)]
    argv += [f"--sample={c}={p}" for c in COLOURS for p in sorted(cal.glob(f"{c}_*.jpg"))]
    argv += [f"--courtier={p.stem.split('_', 1)[1]}={p}" for p in sorted(cal.glob("courtier_*.jpg"))]
    yield profile, argv


def test_calibrate_and_count_are_german(german: None, calibrated: tuple[Path, list[str]], tray_dev: Path,
                                        tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    profile, argv = calibrated
    captions: list[str] = []
    real_caption = vision.annotate.caption_text

    def caption_text(reading: Any, say: Any = str) -> str:
        captions.append(real_caption(reading, say))
        return captions[-1]
    monkeypatch.setattr(vision.annotate, "caption_text", caption_text)
    code, learned = said(capsys, *argv)
    assert code == 0 and "Farbe" in learned and "Höfling Rot" in learned and "Profil geschrieben:" in learned, learned
    photos = [str(p) for p in sorted((tray_dev / "test").glob("*.jpg"))[:3]]
    (tmp_path / "not-a-photo.jpg").write_text("not an image")
    outputs = [learned,
               said(capsys, "calibrate", "markers", "--out", str(tmp_path / "sheet.png"))[1],
               said(capsys, "calibrate", "check", "--profile", str(profile), photos[0], "--out", str(tmp_path / "c.png"))[1],
               said(capsys, "count", "--profile", str(profile), *photos, str(tmp_path / "not-a-photo.jpg"),
                    "--annotate", str(tmp_path / "ann"))[1],
               said(capsys, "count", "--profile", str(tmp_path / "not-a-photo.jpg"), photos[0])[1]]
    station = tmp_path / "station.toml"
    station.write_text((REPO / "examples" / "sim.toml").read_text(encoding="utf-8").replace(
        'data_dir = "tower-data"', f'data_dir = "{tmp_path / "data"}"'), encoding="utf-8")
    outputs.append(said(capsys, "calibrate", "shot", "--config", str(station), "--out", str(tmp_path / "shot.png"))[1])
    folder = [said(capsys, "calibrate", "colours", "--shots", str(where), "--out", str(tmp_path / "p.json"))[1]
              for where in (tmp_path, tmp_path / "none")]  # a folder without the empty tray's shot; no folder
    outputs += [*folder, said(capsys, "calibrate", "colours", "--out", str(tmp_path / "p.json"))[1]]
    assert "enthält kein Foto der leeren Schale" in folder[0] and "ist kein Ordner" in folder[1], folder
    for text in outputs:
        assert not english_left_in(text), english_left_in(text)
        assert not decimal_points(text), decimal_points(text)
    assert "Aufnahme geschrieben" in outputs[5] and "Marker der Platte gefunden: 4 von 4" in outputs[5]
    assert "beschriftetes Bild geschrieben" in outputs[2]
    assert "Sicherheit" in outputs[3] and "unbrauchbar:" in outputs[3] and "Höflinge" in outputs[3]
    assert "kein Farbprofil" in outputs[4]
    assert len(captions) == 4 and all(c.startswith(("Sicherheit", "UNBRAUCHBAR")) for c in captions), captions


@pytest.mark.parametrize("view", [(), ("--verbose",)], ids=["compact", "verbose"])
def test_the_demo_is_german(german: None, view: tuple[str, ...], tmp_path: Path,
                            capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # one panel line per line: a command as typed ("tower correct") unwrapped
    code, text = said(capsys, "demo", "--rounds", "1", *view, "--data-dir", str(tmp_path / "demo"))
    assert code == 0, text
    assert "Würfelturm-Station für Wallenstein" in text and "Ende der Partie" in text
    assert not english_left_in(text), english_left_in(text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_tower_serve_greets_in_german(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TOWER_PIN")}
    env.update(LANG=GERMAN, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "controller", "serve", "--data-dir", str(tmp_path / "data"),
                             "--host", "127.0.0.1", "--port", str(free_port())],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("Geräte des Gastgebers"):
                break
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    text = "".join(lines)
    assert "PIN des Gastgebers: " in text and "Der Tisch ist erreichbar unter" in text, text
    assert "Zuschauer kommen hinzu unter" in text
    assert not english_left_in(text), english_left_in(text)


# -- English stays English ------------------------------------------------------------------------------------


def test_english_help_is_argparse_own_under_lang_c(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LANG", "C")
    _, text = said(capsys, "battle", "attack", "--help")
    assert text == sub_parser(build_parser(), "battle", "attack").format_help()  # byte for byte what argparse writes untranslated
    assert text.startswith("usage: tower battle attack [-h] --attacker ATTACKER") and "options:" in text
    monkeypatch.setenv("LANG", GERMAN)
    said(capsys, "battle", "attack", "--help")
    monkeypatch.setenv("LANG", "C")
    assert said(capsys, "battle", "attack", "--help")[1] == text  # argparse's words are set back after a German run
    code, error = said(capsys, "battle", "attack")
    assert code == 2 and "tower battle attack: error: the following arguments are required: --attacker, --armies" in error


def test_english_output_keeps_its_decimal_points(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANG", "C")
    monkeypatch.setenv("COLUMNS", "100")
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    d = ("--data-dir", str(tmp_path))
    said(capsys, "session", "new", "--players", "red,blue,yellow", *d)
    said(capsys, "fill", "--yes", *d)
    _, text = said(capsys, "battle", "attack", "--attacker", "red", "--armies", "3", "--defender", "blue",
                   "--defending", "2", "--yes", *d)
    assert re.search(r"Odds before the drop \(spielbyweb, exact\): red wins \d+\.\d %", text), text
    assert re.search(r"\(confidence \d\.\d\d, ", text), text


def test_numbers_take_the_languages_decimal_sign_and_nothing_else_changes() -> None:
    # text no msgid matches keeps its words; its decimals take the language's form, once
    assert spoken_text("zork 15.7 %, p < 0.05, 1234.50 zorks", "de") == "zork 15,7 %, p < 0,05, 1.234,50 zorks"
    kept = "at http://127.0.0.1:8000/ v1.2.3 t0038.jpg /data/1.5/x 3 of 12"
    assert spoken_text(kept, "de") == kept
    assert spoken_text("15.7 %", "en") == "15.7 %"
    # a decimal with three places left in untranslated text is a decimal, not a thousand group
    assert spoken_text("zork 412.345", "de") == "zork 412,345" and spoken_text("zork: 412.345 s", "de") == "zork: 412,345 s"
    assert spoken_text("beam counter answers: 3 cubes since the last reset, in 0.25 s", "de") == (
        "der Zähler der Lichtschranke antwortet: 3 Würfel seit dem letzten Zurücksetzen, in 0,25 s")
    assert translate("Expected in the tray: the peasants 2.3, blue 5.0", "de") == (
        "Erwartet in der Schale: die Bauern 2,3, Blau 5,0")  # as the page translates it
    # a thousand group translate wrote the German way is not taken for a decimal afterwards
    assert spoken_text("simulated, 40,000 drops", "de") == "simuliert, 40.000 Würfe"
