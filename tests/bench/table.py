"""A plain-text table printer for the benchmarks (right-aligned numbers, left-aligned text)."""

from __future__ import annotations

from collections.abc import Sequence


def fmt(value: object, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        return f"{value:,.{digits}f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def render(headers: Sequence[str], rows: Sequence[Sequence[object]], digits: int = 2) -> str:
    """The rows under their headers, columns as wide as their widest cell; the first column is
    text (left-aligned), the others right-aligned."""
    cells = [[fmt(v, digits) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        pairs = enumerate(zip(values, widths, strict=True))
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in pairs)

    out = [line(list(headers)), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)
