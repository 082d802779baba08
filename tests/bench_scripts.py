"""The benches' scripts (``bench/*.py``, not a package) loaded as modules, for the tests that run a
short version of a bench or check what it prints."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str) -> ModuleType:
    """``bench/<name>.py``, executed afresh as the module ``name``."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass of the script looks its module up by name
    spec.loader.exec_module(module)
    return module
