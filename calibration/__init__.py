"""Camera calibration: the printable marker sheet and the colour profile the counter learns from."""
