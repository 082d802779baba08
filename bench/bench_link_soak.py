"""Link soak benchmark (issue 4, must-show 2): commands through a link that loses and corrupts
frames, then an exact account of the actions the board carried out.

Part 1: 10,000 commands, 5% of frames corrupted and 5% lost in *each* direction, host code
(SerialTrayBoard, SerialFunnelRelease, BoardLink) against the firmware's own board logic running
in-process on a virtual clock. Part 2: the same against the real firmware under MicroPython on a
pty (real time, fewer commands), checked through the firmware's hardware log. Exits non-zero if
any action was lost or duplicated.

    .venv/bin/python bench/bench_link_soak.py [--commands 10000] [--pty-commands 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.link.soak import PtySoakReport, SoakReport, run_pty_soak, run_soak  # noqa: E402


def _print_report(report: SoakReport | PtySoakReport) -> bool:
    """Print a soak report's figures, its first errors and the verdict; return whether it passed."""
    for line in report.lines():
        print("  " + line)
    for error in report.errors[:5]:
        print("  error: " + error)
    print(f"  RESULT: {'PASS' if report.ok else 'FAIL'}")
    return bool(report.ok)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--pty-commands", type=int, default=1000, help="0 skips the MicroPython part")
    parser.add_argument("--corrupt", type=float, default=0.05)
    parser.add_argument("--loss", type=float, default=0.05)
    parser.add_argument("--retries", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    ok = True
    print(
        f"link soak: {args.commands} commands, {args.corrupt:.0%} frames corrupted and {args.loss:.0%} lost "
        f"in each direction, {args.retries} retries, seed {args.seed}; board = firmware logic in-process"
    )
    report = run_soak(
        args.commands, corrupt=args.corrupt, loss=args.loss, seed=args.seed, retries=args.retries
    )
    ok &= _print_report(report)

    if args.pty_commands:
        print(f"\nlink soak against the firmware under MicroPython on a pty: {args.pty_commands} commands")
        pty = run_pty_soak(
            args.pty_commands, corrupt=args.corrupt, loss=args.loss, seed=args.seed, retries=args.retries
        )
        ok &= _print_report(pty)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
