"""The drop cycle's gate on readings of every shape the counter may give: properties, not cases.

``controller.rereads.read_verified`` reads the tray until a reading is beyond doubt: it weighs the
counter's alternatives against the break-beam and the tower ledger, shakes the tray and reads again,
joins the reads, and asks the host. Each of those steps reads the alternatives in its own way, and
a combination no hand-written case tried stopped the drop cycle once (held-out seed 4756: a
``KeyError`` on a read after a joined question about two colours). Here hypothesis draws the reads
(counts, alternatives in the counter's format, trust, cover, courtiers, patches that move or stay
between shakes), the beam and the ledger, a board whose motor or beam may fail, and checks what
must hold whatever they are:

* the gate finishes: no exception, at most ``MAX_READS`` reads;
* what it would act on is what the records say it acts on (a crash after the reading's record is
  resumed from the record: ``controller.cycle._reading_counts``), and the ledger allows it;
* a question offers at least two counts a colour, near what some read named, each one the ledger
  allows, and the rest of the tray it keeps (``best``) is one the ledger allows too;
* everything it records is JSON, as the records keep it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from laid_out import laid_out
from stations import deployed_station

from controller import session as ses
from controller.cycle import _reading_counts
from controller.rereads import MAX_READS, read_verified
from controller.verify import ledger_faults
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS
from vision.reading import Detection, TrayReading

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def alternatives_for(draw: Any, count: int) -> list[tuple[int, float]]:
    """A colour's alternatives as the counter gives them: 2-4 counts, the first the count read and
    the likeliest, probabilities rounded to 3 places and summing to 1."""
    others = draw(st.lists(st.integers(max(count - 3, 0), count + 3).filter(lambda n: n != count),
                           min_size=1, max_size=3, unique=True))
    weights = [draw(st.integers(1, 100)) for _ in others]
    top = draw(st.integers(max(weights) + 1, max(weights) + 300))
    total = top + sum(weights)
    rest = sorted(((n, round(w / total, 3)) for n, w in zip(others, weights, strict=True)), key=lambda a: -a[1])
    return [(count, round(1.0 - sum(p for _, p in rest), 3)), *rest]


@st.composite
def patches(draw: Any, cubes: dict[str, int]) -> list[Detection]:
    """Cube patches where they lie (the gate asks whether a shake moved them)."""
    out = []
    for colour, n in cubes.items():
        for _ in range(min(n, 3)):
            x, y = draw(st.floats(-70, 70)), draw(st.floats(-50, 50))
            out.append(Detection("cube", colour, np.zeros((4, 2)), (x, y)))
    return out


@st.composite
def readings(draw: Any) -> TrayReading:
    if draw(st.integers(0, 19)) == 0:
        return TrayReading.unusable("a hand is over the tray")
    cubes = {c: draw(st.integers(0, 9)) for c in ALL_COLOURS}
    doubted = draw(st.lists(st.sampled_from(ALL_COLOURS), max_size=3, unique=True))
    alternatives = {c: draw(alternatives_for(cubes[c])) for c in doubted}
    courtiers = {c: draw(st.integers(0, 1)) for c in PLAYER_COLOURS}
    pawn_cubes = {c: 1 for c in draw(st.lists(st.sampled_from(PLAYER_COLOURS), max_size=1)) if cubes[c]}
    trusted = not alternatives and draw(st.booleans())
    cover = 1.0 if trusted else draw(st.floats(0.6, 1.0))
    detections = draw(patches(cubes))
    for d in detections:
        d.doubt = d.colour in alternatives and draw(st.booleans())
    if draw(st.booleans()):  # as a record gives it back: the colours not seen left out
        cubes = {c: n for c, n in cubes.items() if n}
    return TrayReading(cubes=cubes, courtiers=courtiers, confidence=0.5, detections=detections, trusted=trusted,
                       alternatives=alternatives, pawn_cubes=pawn_cubes, alternatives_cover=cover,
                       settled=draw(st.integers(0, 9)) > 0)


class Tray:
    """The reader and the tray board at once: the k-th read gives the k-th drawn reading (the last
    again once they run out); the beam and the motor may fail as a real board's may."""

    def __init__(self, reads: list[TrayReading], beam: int | None, motor_fails: bool) -> None:
        self.reads, self.beam, self.motor_fails, self.done = reads, beam, motor_fails, 0

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        self.done += 1
        return self.reads[min(self.done, len(self.reads)) - 1]

    def beam_count(self) -> int:
        if self.beam is None:
            raise OSError("the tray board does not answer")
        return self.beam

    def vibrate(self, seconds: float) -> None:
        if self.motor_fails:
            raise OSError("the vibration motor does not answer")


@st.composite
def reads_of_one_tray(draw: Any) -> list[TrayReading]:
    """Reads of one tray as a station makes them: the first, then each after a shake seeing the
    same cubes but for a colour or two one off, its patches moved by the shake or, now and then,
    lying where they lay (a shake that moved nothing)."""
    first = draw(readings())
    reads = [first]
    for _ in range(draw(st.integers(0, MAX_READS - 1))):
        cubes = dict(first.cubes)
        for colour in draw(st.lists(st.sampled_from(ALL_COLOURS), max_size=2, unique=True)):
            cubes[colour] = max(cubes.get(colour, 0) + draw(st.sampled_from((-1, 1))), 0)
        doubted = draw(st.lists(st.sampled_from(ALL_COLOURS), max_size=2, unique=True))
        alternatives = {c: draw(alternatives_for(cubes.get(c, 0))) for c in doubted}
        moved = draw(patches(cubes)) if draw(st.integers(0, 4)) else [
            Detection("cube", d.colour, d.outline, d.centre_mm) for d in first.detections]
        reads.append(TrayReading(cubes=cubes, courtiers=dict(first.courtiers), confidence=0.5, detections=moved,
                                 trusted=not alternatives and draw(st.booleans()), alternatives=alternatives,
                                 alternatives_cover=1.0 if not alternatives else draw(st.floats(0.6, 1.0))))
    return reads


@st.composite
def stations(draw: Any) -> tuple[Tray, dict[str, int], dict[str, int] | None]:
    reads = draw(st.one_of(reads_of_one_tray(), st.lists(readings(), min_size=1, max_size=MAX_READS)))
    seen = sum(reads[0].cubes.values())
    beam = draw(st.one_of(st.none(), st.integers(max(seen - 4, 0), seen + 4)))
    dropped = {c: draw(st.integers(0, 12)) for c in ALL_COLOURS}
    tower_before = draw(st.one_of(st.none(), st.fixed_dictionaries({c: st.integers(0, 4) for c in ALL_COLOURS})))
    return Tray(reads, beam, draw(st.integers(0, 7)) == 0), dropped, tower_before


def offered(tray: Tray, colour: str) -> set[int]:
    """Every count of ``colour`` some read gave or offered."""
    return {n for r in tray.reads for n in [r.cubes.get(colour, 0), *(k for k, _ in r.alternatives.get(colour, []))]}


@SETTINGS
@given(stations())
def test_the_gate_finishes_and_acts_only_on_what_it_records_and_the_ledger_allows(station: Any) -> None:
    tray, dropped, tower_before = station
    verified = read_verified(tray, tray, "drop-000001", dropped, tower_before)
    assert 1 <= tray.done <= MAX_READS
    reconciled = verified.reconciliation.as_dict() if verified.reconciliation is not None else None
    record = {"reading": verified.observation.to_record(), "doubts": verified.doubts, "attempts": verified.attempts,
              "reconciliation": reconciled, "notes": verified.notes, "beam": verified.beam}
    json.dumps(record)  # the reading's record, as the cycle commits it
    if verified.doubts:
        return
    assert verified.observation.usable
    # a crash after the record is resumed from it: it must name the tray the cycle resolves with
    resumed = _reading_counts({"reconciliation": reconciled, "reading": record["reading"]})
    used = {c: n for c, n in verified.counts.items() if n}
    assert {c: n for c, n in resumed.items() if n} == used
    assert not ledger_faults(verified.counts, dropped, tower_before)
    # an untrusted read is acted on only with the reason recorded
    assert verified.observation.trusted or any("without asking" in note or "after shaking" in note for note in verified.notes)


@SETTINGS
@given(stations())
def test_a_question_offers_counts_the_reads_named_and_its_base_completes_it(station: Any) -> None:
    tray, dropped, tower_before = station
    verified = read_verified(tray, tray, "drop-000001", dropped, tower_before)
    question = verified.question
    if not question:
        return
    rec = verified.reconciliation
    assert rec is not None and verified.doubts
    for colour, counts in question.items():
        assert colour in ALL_COLOURS
        assert len(counts) >= 2 and counts == sorted(set(counts))
        assert all(isinstance(n, int) and n >= 0 for n in counts)
        named = offered(tray, colour)
        assert set(counts) <= set(range(min(named) - 1, max(named) + 4))
        # every button on the page is a count the ledger allows
        assert all(not ledger_faults({colour: n}, dropped, tower_before) for n in counts), (colour, counts)
    # the host's answer completes the base (controller.cycle.DropCycle.answer): what it keeps is
    # a tray the ledger allows too, so that any answer on offer can be resolved
    base = rec.best or verified.observation.cubes
    assert not ledger_faults({c: n for c, n in base.items() if c not in question}, dropped, tower_before)


# The whole drop cycle, records and all: a battle on the simulated station whose counter hesitates
# as drawn; whatever the gate does, the records stay whole and the host can always finish the drop.

ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 6, "defender": "yellow",
          "defending_armies": 5}


@st.composite
def hesitations(draw: Any) -> list[dict[str, Any]]:
    """How each read after the drop errs: a colour or two one off, some colours in doubt (the truth
    among the alternatives or not), trusted or not, its patches moved by each shake or not."""
    out = []
    for _ in range(draw(st.integers(1, MAX_READS))):
        out.append({"off": draw(st.dictionaries(st.sampled_from(ALL_COLOURS), st.sampled_from((-1, 1)), max_size=2)),
                    "doubted": draw(st.lists(st.sampled_from(ALL_COLOURS), max_size=3, unique=True)),
                    "seed": draw(st.integers(0, 2**16)), "trusted": draw(st.booleans()),
                    "cover": draw(st.floats(0.6, 1.0)), "still": draw(st.integers(0, 4)) == 0})
    return out


class HesitantReader:
    """Reads the simulated tray as drawn (``hesitations``), one after each shake; the reads before
    and after a drop (the tray checks) are exact."""

    def __init__(self, sim: Any, drawn: list[dict[str, Any]]) -> None:
        self.sim, self.drawn, self.reads = sim, drawn, 0

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        truth = {c: int(self.sim.tray_contents().get(c, 0)) for c in ALL_COLOURS}
        if not tag.startswith("drop-"):
            return TrayReading(cubes=truth, source="direct")
        how = self.drawn[min(self.reads, len(self.drawn) - 1)]
        self.reads += 1
        rng = np.random.default_rng(how["seed"])
        cubes = {c: max(n + how["off"].get(c, 0), 0) for c, n in truth.items()}
        alternatives = {}
        for colour in how["doubted"]:
            n = cubes[colour]
            other = truth[colour] if truth[colour] != n else n + 1
            p = round(float(rng.uniform(0.5, 0.9)), 3)
            alternatives[colour] = [(n, p), (other, round(1 - p, 3))]
        shift = 0.0 if how["still"] else float(rng.uniform(3, 9))
        return TrayReading(cubes=cubes, trusted=how["trusted"] and not alternatives, confidence=0.5,
                           detections=laid_out(cubes, shift), alternatives=alternatives,
                           alternatives_cover=1.0 if not alternatives else how["cover"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(hesitations())
def test_whatever_the_gate_does_the_records_stay_whole_and_the_host_can_finish_the_drop(
        tmp_path_factory: Any, drawn: list[dict[str, Any]]) -> None:
    sim, cyc = deployed_station(tmp_path_factory.mktemp("station"))
    cyc.reader = HesitantReader(sim, drawn)
    drop_id = cyc.plan(ATTACK)["drop_id"]
    view = cyc.release(drop_id)
    assert cyc.store.verify().ok
    truth = ses.clean(sim.tray_contents())
    if view["phase"] == "counted":  # the station asks: the host answers, or corrects the whole tray
        assert view["needs_confirmation"]
        question = view["question"]
        if question and all(truth.get(c, 0) in counts for c, counts in question.items()):
            view = cyc.answer(drop_id, {c: truth.get(c, 0) for c in question}, who="host")
        if view["phase"] != "resolved" or view["tray_after"] != truth:
            view = cyc.correct(drop_id, truth, who="host")
        assert view["phase"] == "resolved" and view["tray_after"] == truth
    assert view["phase"] == "resolved"
    assert ses.conservation_errors(cyc.state) == []
    assert cyc.store.verify().ok
