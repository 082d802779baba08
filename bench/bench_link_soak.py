"""Link soak benchmark (issue 4, must-show 2; issue 14, items 5 and 9): commands through a link
that loses, corrupts and reorders frames while the board resets and the heartbeat runs, then an
exact account of the actions the board carried out.

Part 1: 10,000 commands, by default 10 % of frames corrupted and 10 % lost in *each* direction, 5 %
delivered late (a first try after its own retransmission or after the next command), the board
power-cycling around 1 % of frames (keeping its saved release count), and the heartbeat thread
pinging while the host idles: host code (SerialTrayBoard, SerialFunnelRelease, BoardLink) against
the firmware's own board logic running in-process on a virtual clock. Part 2: the same against the
real firmware under MicroPython on a pty (real time, fewer commands; resets restart the firmware
process), checked through the firmware's hardware log; a firmware that dies ends the run at once.
Exits non-zero if any action was lost or duplicated, any read was wrong, any reset went untold, or
any command failed.

    .venv/bin/python bench/bench_link_soak.py [--commands 10000] [--pty-commands 1000] [--seed 1]
        [--corrupt 0.1] [--loss 0.1] [--reorder 0.05] [--reset 0.01] [--retries 12]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulation.link.soak import SoakReport, run_soak  # noqa: E402
from simulation.link.soak_pty import PtySoakReport, run_pty_soak  # noqa: E402


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
    parser.add_argument("--corrupt", type=float, default=0.1)
    parser.add_argument("--loss", type=float, default=0.1)
    parser.add_argument("--reorder", type=float, default=0.05, help="share of chunks delivered late")
    parser.add_argument("--reset", type=float, default=0.01,
                        help="board resets: per frame in-process, per operation (x2) on the pty")
    parser.add_argument("--heartbeat", type=float, default=0.02, help="in-process heartbeat (virtual s)")
    parser.add_argument("--pty-heartbeat", type=float, default=0.2, help="pty heartbeat (s)")
    parser.add_argument("--retries", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    ok = True
    print(
        f"link soak: {args.commands} commands, {args.corrupt:.0%} frames corrupted, {args.loss:.0%} lost and "
        f"{args.reorder:.0%} late in each direction, board resets {args.reset:.0%} of frames, heartbeat, "
        f"{args.retries} retries, seed {args.seed}; board = firmware logic in-process"
    )
    report = run_soak(
        args.commands, corrupt=args.corrupt, loss=args.loss, seed=args.seed, retries=args.retries,
        reset=args.reset, reorder=args.reorder, heartbeat_s=args.heartbeat,
    )
    ok &= _print_report(report)

    if args.pty_commands:
        print(f"\nlink soak against the firmware under MicroPython on a pty: {args.pty_commands} commands")
        pty = run_pty_soak(
            args.pty_commands, corrupt=args.corrupt, loss=args.loss, seed=args.seed, retries=args.retries,
            reset=2 * args.reset, reorder=args.reorder, heartbeat_s=args.pty_heartbeat,
        )
        ok &= _print_report(pty)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
