"""The cluster URL (``ludoteca.adapters.cluster``): which URLs name a cluster, their startup nodes and
credentials, and the broker never derived from one. The cluster itself: tests/integration/test_cluster.py."""

from __future__ import annotations

import pytest
from ludoteca.adapters.cluster import connection_options, is_cluster_url, startup_nodes
from ludoteca.config import Settings
from redis.backoff import NoBackoff


@pytest.mark.parametrize(("url", "cluster"), [
    ("redis+cluster://127.0.0.1:7000", True), ("REDIS+CLUSTER://h:1", True), ("rediss+cluster://h:1", True),
    ("redis://127.0.0.1:6379/0", False), ("rediss://h:1/0", False), ("unix:///tmp/r.sock", False),
])
def test_which_urls_name_a_cluster(url: str, cluster: bool) -> None:
    assert is_cluster_url(url) is cluster


def test_startup_nodes_credentials_and_fail_fast_options() -> None:
    url = "rediss+cluster://app:p%40ss@10.0.0.1:7000,redis-b:7001, [::1]:7002"
    nodes = [("10.0.0.1", 7000), ("redis-b", 7001), ("::1", 7002)]
    assert startup_nodes(url) == nodes
    options = connection_options(url, 0.5, 64)
    assert [(n.host, n.port) for n in options["startup_nodes"]] == nodes
    assert (options["username"], options["password"], options["ssl"]) == ("app", "p@ss", True)
    assert (options["socket_timeout"], options["socket_connect_timeout"], options["max_connections"]) == (0.5, 0.5, 64)
    retry = options["retry"]
    assert retry.get_retries() == 0 and isinstance(retry._backoff, NoBackoff)
    plain = connection_options("redis+cluster://h:1", 1.0, 10)
    assert "ssl" not in plain and "password" not in plain


@pytest.mark.parametrize("url", ["redis+cluster://h", "redis+cluster://h:port", "redis+cluster://:7000", "redis+cluster://"])
def test_a_location_without_host_and_port_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        startup_nodes(url)


def test_the_broker_is_never_derived_from_a_cluster_url() -> None:
    with pytest.raises(ValueError, match="BROKER_URL"):
        Settings(redis_url="redis+cluster://127.0.0.1:7000")
    settings = Settings(redis_url="redis+cluster://127.0.0.1:7000", broker_url="redis://127.0.0.1:6379/0")
    assert settings.broker_url == "redis://127.0.0.1:6379/0"
    assert Settings(redis_url="redis://h:1/0").broker_url == "redis://h:1/1"
