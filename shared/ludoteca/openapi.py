"""Export each installed game's OpenAPI document: ``python -m ludoteca.openapi openapi/``.

The documents are built from the code (no Redis needed); a test compares them with the files
in ``openapi/`` so the two never drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ludoteca import registry
from ludoteca.config import Settings
from ludoteca.hosting import create_app


class _NoDispatch:
    def bot_turn(self, game: str, game_id: str, version: int) -> None:  # pragma: no cover
        raise RuntimeError("export only")

    def record_result(self, game: str, game_id: str) -> None:  # pragma: no cover
        raise RuntimeError("export only")


def document(game: str) -> dict[str, Any]:
    app = create_app(registry.game(game), Settings(), dispatcher=_NoDispatch())
    with app.app_context():
        spec: dict[str, Any] = app.extensions["ludoteca"]["api"].document()
    return spec


def render(game: str) -> str:
    return json.dumps(document(game), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python -m ludoteca.openapi [OUTPUT_DIR]   (default: openapi)", file=sys.stderr)
        return 2
    out = Path(argv[0] if argv else "openapi")
    out.mkdir(parents=True, exist_ok=True)
    for game in registry.names():
        try:
            text = render(game)
        except ImportError as err:
            print(f"skipping {game}: {err}", file=sys.stderr)
            continue
        (out / f"{game}.json").write_text(text)
        print(f"wrote {out / (game + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
