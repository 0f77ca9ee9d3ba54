"""Ludor game service of Ludoteca."""
