"""Reading the tray from a photo: rectify on the plate's markers, segment colours, count cubes and pawns."""
