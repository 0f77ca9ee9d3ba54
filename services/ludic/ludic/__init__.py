"""Ludic game service of Ludoteca."""
