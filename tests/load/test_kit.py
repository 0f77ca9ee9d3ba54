"""The load kit's pure parts: the shapes over time, the histogram quantile the summary reads the
server's latencies with, the think time, the mix and the durations the command takes."""

from __future__ import annotations

import random
import sys
from argparse import ArgumentTypeError
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from loadtest import metrics, shapes
from loadtest.client import Think
from loadtest.games import weights
from loadtest.run import seconds


def test_steady_holds_its_users_to_the_end() -> None:
    assert [shapes.steady(t, 60, 20, 2) for t in (0, 30, 59.9)] == [(20, 2)] * 3
    assert shapes.steady(60, 60, 20, 2) is None


def test_ramp_climbs_over_four_fifths_then_holds() -> None:
    users = [shapes.ramp(t, 100, 40, 1)[0] for t in (0, 20, 40, 80, 99)]  # type: ignore[index]
    assert users == [1, 10, 20, 40, 40]
    assert shapes.ramp(100, 100, 40, 1) is None


def test_spike_is_a_fifth_then_everyone_then_a_fifth() -> None:
    users = [shapes.spike(t, 90, 50, 1)[0] for t in (0, 29, 30, 59, 60, 89)]  # type: ignore[index]
    assert users == [10, 10, 50, 50, 10, 10]
    assert shapes.spike(10, 90, 50, 1) == (10, 50.0)  # spawned within about a second
    assert shapes.default_length("soak") == shapes.SOAK_LENGTH > shapes.default_length("ramp")


def test_histogram_quantile_interpolates_within_a_bucket() -> None:
    buckets = {0.01: 50.0, 0.1: 90.0, 1.0: 100.0, float("inf"): 100.0}
    assert metrics.histogram_quantile(0.5, buckets) == pytest.approx(0.01)
    assert metrics.histogram_quantile(0.7, buckets) == pytest.approx(0.01 + 0.09 * 0.5)
    assert metrics.histogram_quantile(0.95, buckets) == pytest.approx(0.1 + 0.9 * 0.5)
    assert metrics.histogram_quantile(0.5, {0.1: 0.0, float("inf"): 0.0}) is None
    assert metrics.histogram_quantile(0.99, {0.1: 1.0, float("inf"): 10.0}) == 0.1  # past the last bound


def test_metrics_window_and_per_game_figures() -> None:
    before = metrics.parse('ludoteca_moves_total{game="ludix",outcome="applied",status="200"} 5.0\n')
    after = metrics.parse(
        'ludoteca_moves_total{game="ludix",outcome="applied",status="200"} 12.0\n'
        'ludoteca_moves_total{game="ludix",outcome="refused",status="412"} 1.0\n'
        'ludoteca_bot_turns_total{game="ludix",outcome="played"} 3.0\n'
        'ludoteca_move_duration_seconds_bucket{game="ludix",action="roll",le="0.01"} 4.0\n'
        'ludoteca_move_duration_seconds_bucket{game="ludix",action="hold",le="0.01"} 4.0\n'
        'ludoteca_move_duration_seconds_bucket{game="ludix",action="roll",le="+Inf"} 4.0\n'
        'ludoteca_move_duration_seconds_bucket{game="ludix",action="hold",le="+Inf"} 4.0\n'
        'other_total 9.0\n')
    figures = metrics.per_game(metrics.delta(before, after))["ludix"]
    assert figures["moves"] == {"applied 200": 7, "refused 412": 1}
    assert figures["bot_turns"] == {"played": 3}
    assert figures["move_seconds"]["p50"] == pytest.approx(0.005)
    assert figures["bot_delay_seconds"]["p50"] is None


def test_think_time_grows_with_the_choices_and_scales_to_nothing() -> None:
    rnd = random.Random(7)
    few = sorted(Think().seconds(2, rnd) for _ in range(401))[200]
    many = sorted(Think().seconds(500, rnd) for _ in range(401))[200]
    assert 0.3 < few < many < 30
    assert Think(scale=0).seconds(500, rnd) == 0.0


def test_weights_and_durations() -> None:
    assert weights("ludix=3,ludic", ["ludic", "ludix"], {}, "LOAD_MIX") == {"ludix": 3, "ludic": 1}
    assert weights("ludix=0,ludic=2", ["ludic", "ludix"], {}, "LOAD_MIX") == {"ludic": 2}
    assert weights("", ["ludix"], {"ludix": 1}, "LOAD_MIX") == {"ludix": 1}
    with pytest.raises(SystemExit, match="unknown 'chess'"):
        weights("chess=1", ["ludix"], {}, "LOAD_MIX")
    assert [seconds(t) for t in ("90", "90s", "2m", "1h30m")] == [90, 90, 120, 5400]
    with pytest.raises(ArgumentTypeError, match="not a duration"):
        seconds("soon")
