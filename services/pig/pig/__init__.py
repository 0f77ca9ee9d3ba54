"""Pig: the smallest complete Ludoteca game, and the template a new game copies.

One module per concern, each read by one part of the shell (docs/adding-a-game.md walks through
them in this order):

- :mod:`pig.engine`: the rules, pure (no web, store, clock or global random): what the contract
  in :mod:`ludoteca.core.engine` asks of every game. ``tests/contract`` checks it.
- :mod:`pig.bots`: the bots, pure functions of a seat's view.
- :mod:`pig.schemas`: the marshmallow schemas of the options, the actions, the view, the events
  and the result: the request validation and the OpenAPI document come from them.
- :mod:`pig.game`: the :class:`~ludoteca.core.engine.GameDefinition` the entry point in
  ``pyproject.toml`` names: everything the shell needs, in one value.

The rules as played, every call made, are in ``services/pig/RULES.md``.
"""
