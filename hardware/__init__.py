"""Device interfaces (funnel release, camera, tray board, buttons) with real and simulated backends."""
