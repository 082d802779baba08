"""Calibrate on ../shared/data/tray_dev/calibration, count every scene in test/, print the table.

Usage: .venv/bin/python bench/tray_dev_table.py [TRAY_DEV_DIR]
Exit 0 when every usable scene's colours lie between their visible_cubes and cubes (issue 9) and courtiers equal
and every scene with a foreign object is unusable; 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from calibration.tray_dev import evaluate_tray_dev  # noqa: E402


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data" / "tray_dev"
    rows = evaluate_tray_dev(root)
    print(f"{'scene':<8}{'usable':<8}{'foreign':<9}{'ok':<5}{'counted (r b y p k g | courtiers)':<42}{'truth (visible)':<36}conf")
    for r in rows:
        print(f"{r.name:<8}{str(r.usable):<8}{str(r.foreign or '-'):<9}{'yes' if r.ok else 'NO':<5}"
              f"{r.counted:<42}{r.truth:<36}{r.confidence:.2f}")
    bad = [r.name for r in rows if not r.ok]
    print(f"{len(rows) - len(bad)}/{len(rows)} scenes right" + (f"; wrong: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
