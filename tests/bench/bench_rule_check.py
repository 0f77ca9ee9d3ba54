"""CPU of Ludic's rule checker for refused rules (``POST /rules/check``'s engine part).

A refusal pays for a suggestion search (:mod:`ludic.suggest`); its bounds are counts and, for
long texts, characters parsed and screened. This prints the thread CPU per check, in-process,
for the typos of the language tests (short texts that get a suggestion) and for texts of random
rule words cut at 30, 60, 150 and 300 characters (the longest that gets a suggestion), median and max of each
group, so a change of the bounds shows its cost where it matters: what one client can buy with
one request within its rate limit.

    .venv/bin/python tests/bench/bench_rule_check.py [--texts 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ludic.language import RuleError, parse
from ludic.suggest import MAX_SUGGESTED

SENTENCE = ("the top card is red and bottom card black or sum greater than 7 king queen not even odd "
            "prime face cards are same color rank as")
WORDS = SENTENCE.split()
TYPOS = ("the top card is hihger than 5", "the sum is more 3", "the top card is bigger",
         "the cards are same color", "top card red", "the top card is greater then 5",
         "one card is red and the other black", "the top card is a king or a qeen",
         "the cards are of teh same colour", "one crad is even", "the cards sums to 14")


def cpu_ms(text: str) -> tuple[float, bool]:
    parse.cache_clear()
    start = time.thread_time()
    try:
        parse(text)
        suggested = False
    except RuleError as error:
        suggested = error.suggestion is not None
    return (time.thread_time() - start) * 1000, suggested


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=40, help="random texts per length")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cpu_ms("warm up the parser")
    groups: dict[str, list[str]] = {"typos (suggested)": list(TYPOS)}
    for length in (30, 60, 150, MAX_SUGGESTED):
        groups[f"random words, {length} chars"] = [
            " ".join(rng.choice(WORDS) for _ in range(length))[:length].strip() for _ in range(args.texts)]
    print(f"{'texts':<28} {'n':>4} {'median ms':>10} {'max ms':>8} {'suggested':>10}")
    for name, texts in groups.items():
        runs = [cpu_ms(t) for t in texts]
        ms = [m for m, _ in runs]
        print(f"{name:<28} {len(ms):>4} {statistics.median(ms):>10.1f} {max(ms):>8.1f} "
              f"{sum(s for _, s in runs):>6}/{len(runs)}")


if __name__ == "__main__":
    main()
