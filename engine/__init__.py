"""The Wallenstein combat rules, pure: no I/O, no randomness, and no imports of the rest of the project.

The physical tower is the game's only random source; the engine only plans what goes into it and
resolves what came out.
"""
