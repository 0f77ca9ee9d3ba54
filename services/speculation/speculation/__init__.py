"""Speculation game service of Ludoteca."""
