"""The lowest layer, importing nothing of microsdc: what every other module may use."""
