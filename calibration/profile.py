"""The colour profile file: learned by ``tower calibrate colours``, read by the counter.

The classes live in ``vision.profile`` (the counter needs them and ``vision`` may not import
``calibration``); this module is the calibration-side name for them.
"""

from __future__ import annotations

from vision.errors import ProfileError
from vision.profile import PROFILE_VERSION, ColourModel, ColourProfile, load_profile, save_profile

__all__ = ["PROFILE_VERSION", "ColourModel", "ColourProfile", "ProfileError", "load_profile", "save_profile"]
