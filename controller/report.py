"""The luck report of a session (`tower report`, the web page's report): who the tower favoured, how
unusual that was, the upsets, and how much the tower held back over the game.

The figures come from :mod:`towermodel.luck` under the model fitted to this station's drops (the
config's choice does not matter here: the report asks what this tower does), falling back to
``spielbyweb`` while the fit cannot be trusted, and saying so. The plots are drawn with matplotlib
(its object API, no global pyplot state, so the web server's threads do not share a figure) and
saved as PNG (shown on the page) and SVG (for print) under ``<data_dir>/report/``, one set per language:
the plots' words come from the message catalogue and their tick labels are written the language's way
(Babel: "0,5" in German), so a German reader gets German pictures (``session-3-luck-de.png``) while the
English ones keep their names.

Beside the tower, the report says how the station itself did in the session: how it settled each
tray (:mod:`controller.read_tally`) and how often its break-beam counts two cubes as one, over
every session's drops, against the configured rate (:mod:`controller.beam_rate`): the figures of
`tower model reads` and `tower model beam`, on the page.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from controller.droplog import current_session, log_entries
from controller.i18n import LANGUAGES, localise_number, translate
from controller.odds import choose_model
from controller.read_tally import read_tally
from controller.records import Record
from controller.wording import counts_phrase
from towermodel.droplog import drops_from_lines
from towermodel.luck import luck_report
from towermodel.models import model_to_json

NOT_CHEATING = ("Luck is not cheating. Among players whose cubes fall exactly as the model says, one in twenty "
                "still gets p < 0.05 by chance; a small p-value means an unusual run, or a model that does not "
                "fit this tower, never that anyone did anything.")

SWATCH = {"red": "#c62828", "blue": "#1f5fbf", "yellow": "#e0b400", "purple": "#6f2a9a", "black": "#222222",
          "green": "#2f8a3a"}


def _players(records: list[Record], session: int) -> list[str]:
    for rec in records:
        if rec.kind == "session_new" and int(rec.payload["session_id"]) == session:
            return list(rec.payload.get("players", []))
    return []


def station_measures(records: list[Record], session: int, beam_clump: float | None) -> dict[str, Any]:
    """How the station read the tray in ``session`` (``reads``: :func:`controller.read_tally.read_tally`),
    and its break-beam's clump rate measured on every session's drops (``beam``: the beam is the
    station's, not the game's), with the configured rate ``beam_clump`` and whether it fits; where no
    drop measures the beam yet, ``beam`` is None and ``beam_note`` says why."""
    from controller.beam_rate import beam_drops, fit_clump  # SciPy's optimiser: loaded only for a report

    reads = read_tally(records, session).to_json()
    for changed in reads["corrected_after"]:  # said as the CLI says it, for the page to show
        changed["text"] = f"drop {changed['drop_id']}: {counts_phrase(changed['before'])} changed to {counts_phrase(changed['after'])}"
    out: dict[str, Any] = {"reads": reads, "beam": None, "beam_note": None}
    try:
        fit = fit_clump(beam_drops(records).used)
    except ValueError as exc:
        out["beam_note"] = str(exc)
        return out
    fits = None if beam_clump is None else fit.low <= beam_clump <= fit.high
    out["beam"] = {**fit.to_json(), "configured": beam_clump, "configured_fits": fits}
    return out


def build_report(records: list[Record], data_dir: Path | None, session: int | None = None, *,
                 plots: bool = True, lang: str = "en", beam_clump: float | None = None) -> dict[str, Any]:
    """The report of ``session`` (default: the current one), its plots drawn in ``lang`` (the page's
    or the CLI's language; English by default), with the station's own measures
    (:func:`station_measures`; ``beam_clump``: the station's configured rate, where known);
    ValueError where there is none."""
    wanted = current_session(records) if session is None else session
    entries = log_entries(records, wanted)
    assert wanted is not None
    drops = drops_from_lines(entries)
    model, name, note = choose_model("fitted", records, data_dir)
    report = luck_report(model, drops, entries, _players(records, wanted))
    report.update(session=wanted, model={"name": name, **model_to_json(model)}, model_note=note,
                  not_cheating=NOT_CHEATING, plots={}, station=station_measures(records, wanted, beam_clump))
    if plots and data_dir is not None and drops:
        report["plots"] = draw_plots(report, data_dir / "report", f"session-{wanted}", lang)
        report["plots"] = {k: str(Path(v).relative_to(data_dir)) for k, v in report["plots"].items()}
    report.pop("cumulative")
    return report


def draw_plots(report: dict[str, Any], folder: Path, stem: str, lang: str = "en") -> dict[str, str]:
    """Two figures, each as PNG and SVG: luck over the game per player, and the tower's contents.
    Files in another language than English end in ``-<lang>`` (each language has its own set)."""
    folder.mkdir(parents=True, exist_ok=True)
    lang = lang if lang in LANGUAGES else "en"
    suffix = "" if lang == "en" else f"-{lang}"
    written: dict[str, str] = {}
    written.update(_save(luck_figure(report, lang), folder / f"{stem}-luck{suffix}", "luck"))
    written.update(_save(retention_figure(report, lang), folder / f"{stem}-retention{suffix}", "retention"))
    return written


def luck_figure(report: dict[str, Any], lang: str = "en") -> Any:
    """Each side's cubes out of its battles minus what the model expected, drop by drop."""
    from matplotlib.figure import Figure

    say = functools.partial(translate, lang=lang)

    fig = Figure(figsize=(7, 3.6), dpi=120, layout="constrained")
    ax = fig.add_subplot()
    for colour, points in report["cumulative"].items():
        if not points:
            continue
        xs = [0] + [i + 1 for i, _ in points]
        ys = [0.0] + [d for _, d in points]
        label = say("peasants" if colour == "green" else colour)
        ax.plot(xs, ys, marker="o", markersize=3, color=SWATCH.get(colour, "#888"), label=label,
                linestyle="--" if colour == "green" else "-")
    ax.axhline(0, color="#6b5f52", linewidth=0.8)
    ax.set_xlabel(say("drop"))
    ax.set_ylabel(say("cubes out minus expected"))
    ax.set_title(say("Luck over the game: each side's cubes out of its battles, against the model"))
    _ticks(ax, lang)
    ax.legend(loc="best", fontsize="small", frameon=False)
    return fig


def retention_figure(report: dict[str, Any], lang: str = "en") -> Any:
    """Per drop: the cubes thrown in, those that came out, and what the tower held afterwards."""
    from matplotlib.figure import Figure

    say = functools.partial(translate, lang=lang)

    fig = Figure(figsize=(7, 3.2), dpi=120, layout="constrained")
    ax = fig.add_subplot()
    rows = report["retention"]
    xs = list(range(1, len(rows) + 1))
    ax.bar(xs, [r["dropped"] for r in rows], color="#e2d6c2", label=say("thrown in"))
    ax.bar(xs, [r["came_out"] for r in rows], color="#b9ab96", width=0.5, label=say("came out"))
    ax.plot(xs, [r["inside_after"] for r in rows], color="#8c2f1b", marker="o", markersize=3,
            label=say("inside the tower after the drop"))
    ax.set_xlabel(say("drop"))
    ax.set_ylabel(say("cubes"))
    ax.set_title(say("Retention: what the tower held back over the game"))
    _ticks(ax, lang)
    ax.legend(loc="upper right", fontsize="small", frameon=False)
    return fig


def _ticks(ax: Any, lang: str) -> None:
    """Whole drops along the x axis; both axes' numbers in ``lang``'s form ("0,5" in German).

    matplotlib's own locale support would switch the process's C locale, which the web server's
    threads share; instead its tick labels are written as usual and then put in the language's form."""
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    class Localised(ScalarFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            text = str(super().__call__(x, pos))
            return localise_number(text, lang) or text

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if lang != "en":
        ax.xaxis.set_major_formatter(Localised())
        ax.yaxis.set_major_formatter(Localised())


def _save(fig: Any, base: Path, name: str) -> dict[str, str]:
    """The figure as PNG (for the page) and SVG (for print), keyed ``<name>_png`` / ``<name>_svg``."""
    written = {}
    for ext in ("png", "svg"):
        path = base.with_name(f"{base.name}.{ext}")
        fig.savefig(path)
        written[f"{name}_{ext}"] = str(path)
    return written
