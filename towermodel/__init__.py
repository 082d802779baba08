"""The tower, measured: models of a cube tower, the odds of a battle before its drop, and the fit of
a model to a station's drop log (``spec/tower-model.md``).

Pure and free of I/O: it imports only the engine (to know what a battle drops and how it is
resolved) and NumPy/SciPy. Randomness lives here and not in the engine, which never rolls a die.
"""
