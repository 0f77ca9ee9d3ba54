"""The offline build steps of Ludic::

    python -m ludic.build space       # the hypothesis space into the disk cache (about a second)
    python -m ludic.build catalogue   # the space, then measure the Vexer's catalogue again (minutes)

(:mod:`ludic.space` builds the space by itself when the cache has none; the catalogue ships as
``ludic/data/vexer_rules.json``.)
"""

from __future__ import annotations

import sys

from ludic.catalogue_build import build_catalogue
from ludic.space import cache_dir, space

COMMANDS = ("space", "catalogue")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in COMMANDS:
        print("usage: python -m ludic.build space|catalogue")
        return 2
    sp = space()
    print(f"hypothesis space: {len(sp)} distinct truth tables from {len(sp.atoms)} atoms "
          f"(cache: {cache_dir()})")
    if argv[0] == "catalogue":
        build_catalogue(sp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
