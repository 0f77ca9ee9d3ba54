"""The WSGI entry point (``ludoteca.entrypoints.wsgi.make_app``) leaves every service's start-up
heap out of the garbage collector's generations (``gc.freeze()``): a game's and a platform
service's alike (a full collection walking ~100k long-lived objects cost 60-90 ms, about 0.9 ms
a move). Each app is built in a fresh interpreter, as gunicorn builds it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from ludoteca.service_layer import registry

BUILD = ("import gc, sys\n"
         "from ludoteca.entrypoints.wsgi import make_app\n"
         "before = gc.get_freeze_count()\n"
         "app = make_app(sys.argv[1])\n"
         "print(before, gc.get_freeze_count(), type(app).__name__)\n")


@pytest.mark.parametrize("service", ["players", registry.names()[0]])
def test_the_app_built_for_gunicorn_freezes_its_start_up_heap(service: str) -> None:
    out = subprocess.run([sys.executable, "-c", BUILD, service], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    before, after, kind = int(out[0]), int(out[1]), out[2]
    assert kind == "Flask"
    assert before == 0 and after > 10_000, (service, before, after)
