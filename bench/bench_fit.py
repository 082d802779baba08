"""How well `tower model fit` recovers simulated towers (issue 10, must-show 2, beyond the tests' few
seeds): for each true model, 40 seeded logs of 300 drops (the initial fill, then game-like battles,
``towermodel.simulate``), the largest error of the fitted parameters, how often the truth lies inside
the stated 95 % intervals (each parameter alone, and both at once), how often AIC picks the true
family, and the time per fit on this machine.

Run: ``.venv/bin/python bench/bench_fit.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from towermodel.fit import fit_models  # noqa: E402
from towermodel.models import TwoChance, named_model  # noqa: E402
from towermodel.simulate import simulated_log  # noqa: E402

SEEDS = 40
DROPS = 300


def main() -> int:
    print(f"{SEEDS} seeds x {DROPS} drops per true model")
    print(f"{'true model':<34} {'max |err|':>18} {'inside 95 % CI':>22} {'both':>6} {'AIC right':>10} {'s/fit':>6}")
    for label, truth in (("spielbyweb", named_model("spielbyweb")),
                         ("wallenstein-online", named_model("wallenstein-online")),
                         ("two-chance 0.75 / 0.2", TwoChance(0.75, 0.2)),
                         ("shelves 0.85 / 1/40", named_model("shelves"))):
        names = list(truth.params())[-2:]
        errors = dict.fromkeys(names, 0.0)
        inside = dict.fromkeys(names, 0)
        both = right = 0
        spent = 0.0
        for seed in range(SEEDS):
            log = simulated_log(truth, DROPS, 1000 + seed)
            start = time.perf_counter()
            fits = fit_models([log])
            spent += time.perf_counter() - start
            right += fits[0].family == truth.family
            fit = next(f for f in fits if f.family == truth.family)
            ok = True
            for name in names:
                true, got = truth.params()[name], fit.model.params()[name]
                errors[name] = max(errors[name], abs(got - true))
                lo, hi = fit.ci95[name] or (float("nan"), float("nan"))
                hit = lo <= true <= hi
                inside[name] += hit
                ok = ok and hit
            both += ok
        err = ", ".join(f"{errors[n]:.3f}" for n in names)
        cover = ", ".join(f"{inside[n]}/{SEEDS}" for n in names)
        print(f"{label:<34} {err:>18} {cover:>22} {both:>3}/{SEEDS} {right:>6}/{SEEDS} {spent / SEEDS:>6.2f}")
    print("(parameters: p_new, p_stuck for two-chance; p_pass, p_knock for shelves; a fit is both families)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
