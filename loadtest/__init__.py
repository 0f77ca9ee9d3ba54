"""The load kit: locust scenarios for every installed game, load shapes, one command to run them
(``python -m loadtest``, ``make load``), a summary beside the server's own metrics, and the
Kubernetes manifest of a distributed run. See docs/load-testing.md.

Modules: :mod:`loadtest.tally` (what the simulated clients saw, merged across locust workers),
:mod:`loadtest.client` (a client that behaves as docs/clients.md asks), :mod:`loadtest.scenarios`
(tables, bot tables, spectators, the lobby), :mod:`loadtest.shapes` (steady, ramp, spike, soak),
:mod:`loadtest.locustfile` (what locust loads), :mod:`loadtest.metrics` (the services' ``/metrics``),
:mod:`loadtest.summary`, :mod:`loadtest.run` (the command) and :mod:`loadtest.k8s` (the manifest).
"""
