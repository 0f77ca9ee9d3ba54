"""Ludix game service of Ludoteca."""
