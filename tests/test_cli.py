"""The `tower` entry point explains itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller.cli import build_parser, main


def test_top_level_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: tower" in out


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    sub_actions = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert sub_actions, "tower has sub-commands"
    for name in sub_actions[0].choices:
        with pytest.raises(SystemExit) as exc:
            main([name, "--help"])
        assert exc.value.code == 0
        assert f"tower {name}" in capsys.readouterr().out


def test_every_command_and_action_describes_itself(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["fill"], ["status"], ["log"], ["correct"], ["battle"], ["battle", "attack"], ["court", "convert"],
                 ["session", "new"]):
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        out = capsys.readouterr().out
        usage, _, rest = out.partition("\n\n")
        assert rest and not rest.startswith(("positional arguments", "options")), f"{argv}: no description"


def test_module_entry_point_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "controller", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "tower" in proc.stdout
