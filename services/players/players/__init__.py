"""The players service (issue 23): one identity across the games. ``routes`` is the web layer
and the app factory; the identity and the players' records are the shared library's
(:mod:`ludoteca.adapters.players`), which the game services use too."""
