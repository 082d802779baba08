"""How long the drop cycle's gate takes to judge reads the counter doubts: CPU per case, one thread.

The latency target (at most 0.3 s from the cubes settling to the result on the page,
``bench/bench_latency.py``) is measured on the simulated station, whose readings are seldom in
doubt. The gate's own work grows with the doubt: ``controller.verify.reconcile`` weighs every
combination of the counter's alternatives (4 counts in each of 6 colours: 4096), and
``controller.joining.joint_chances`` every tray content the reads of a shaken tray leave open. This
times ``controller.rereads.read_verified`` on the cases that cost most, each on a reader and board
that give the same reads every run (the counter is not run: its time is ``bench/bench_count.py``'s)::

    python bench/bench_gate.py [--runs 5]

Each figure is the median CPU time of ``--runs`` runs of the whole gate, every read it makes included.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from controller.rereads import read_verified  # noqa: E402
from vision.geometry import ALL_COLOURS  # noqa: E402
from vision.reading import Detection, TrayReading  # noqa: E402

ALTERNATIVES = [(7, 0.5), (8, 0.25), (6, 0.15), (9, 0.1)]


def read(cubes: int, doubted: tuple[str, ...], shift: float, alternatives: list[tuple[int, float]] = ALTERNATIVES,
         cover: float = 0.8) -> TrayReading:
    """A read of ``cubes`` cubes of every colour, unsure of ``doubted``, its patches ``shift`` mm
    from where the first read saw them (a shake moves them)."""
    patches = [Detection("cube", colour, [], (10.0 * i + shift, 8.0 * k)) for k, colour in enumerate(ALL_COLOURS)
               for i in range(3)]
    first = alternatives[0][0]
    return TrayReading(cubes={c: first if c in doubted else cubes for c in ALL_COLOURS}, confidence=0.5,
                       detections=patches, trusted=False,
                       alternatives={c: list(alternatives) for c in doubted}, alternatives_cover=cover)


class Tray:
    """A reader and tray board giving ``reads`` in turn (the last again once they run out)."""

    def __init__(self, reads: list[TrayReading], beam: int) -> None:
        self.reads, self.beam, self.done = reads, beam, 0

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        self.done += 1
        return self.reads[min(self.done, len(self.reads)) - 1]

    def beam_count(self) -> int:
        return self.beam

    def vibrate(self, seconds: float) -> None:
        pass


CASES = {
    "one colour in doubt": lambda: ([read(7, ("red",), 0.0)], 42),
    "three colours in doubt, four reads joined": lambda: ([read(7, ("red", "blue", "black"), 5.0 * k) for k in range(4)], 44),
    "six colours in doubt (4096 combinations), four reads": lambda: ([read(7, ALL_COLOURS, 5.0 * k) for k in range(4)], 44),
    "reads that disagree on every colour (a hand, another tray)": lambda: (
        [read(5, ALL_COLOURS, 0.0, [(5, 0.4), (3, 0.3), (7, 0.3)], 0.6),
         read(8, ALL_COLOURS, 5.0, [(8, 0.4), (10, 0.3), (2, 0.3)], 0.6)], 40),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    for name, case in CASES.items():
        times, reads_made, doubts = [], 0, 0
        for _ in range(args.runs):
            reads, beam = case()
            tray = Tray(reads, beam)
            start = time.process_time()
            verified = read_verified(tray, tray, "drop-000001", {}, None)
            times.append(time.process_time() - start)
            reads_made, doubts = tray.done, len(verified.doubts)
        outcome = "asks the host" if doubts else "acts"
        print(f"{statistics.median(times) * 1e3:8.1f} ms  {name}: {reads_made} read(s), {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
