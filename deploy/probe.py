"""A container probe without curl (the image is python-slim): exit 0 when healthy, 1 otherwise.

    python deploy/probe.py http://127.0.0.1:8004/readyz   # a game service: GET answers 200
    python deploy/probe.py --redis                        # the sweeper: REDIS_URL and BROKER_URL answer PING

Used by docker-compose.yml's health checks and deploy/k8s's exec probes (Kubernetes' own httpGet
probes need no script). Every check is bounded by --timeout seconds (default 3).
"""

from __future__ import annotations

import argparse
import sys
import urllib.request


def http_ok(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def redis_ok(timeout: float) -> bool:
    import redis
    from ludoteca.config import Settings

    settings = Settings.from_env()
    for url in (settings.redis_url, settings.broker_url):
        try:
            redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout).ping()
        except redis.RedisError as err:
            print(f"probe: {url.rsplit('@', 1)[-1]}: {type(err).__name__}", file=sys.stderr)
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("url", nargs="?", help="GET this URL; healthy on 200")
    what.add_argument("--redis", action="store_true", help="PING the sessions' Redis and the broker")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    ok = redis_ok(args.timeout) if args.redis else http_ok(args.url, args.timeout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
