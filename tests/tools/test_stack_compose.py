"""docker-compose.yml's load balancer, read (no Docker engine runs here): nginx is the only
published service, and the web nodes scale behind it (`--scale web=3`)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_only_nginx_is_published_on_loopback():
    services = _compose()["services"]
    published = {name: s["ports"] for name, s in services.items() if s.get("ports")}
    assert published == {"nginx": ["127.0.0.1:8000:80"]}
    # A fixed container name or host port would stop `--scale web=3`.
    assert "container_name" not in services["web"]


def test_web_trusts_exactly_the_one_proxy_in_front():
    assert _compose()["services"]["web"]["environment"]["TRUSTED_PROXIES"] == "1"


def test_nginx_config_round_robin_with_the_client_address():
    compose = _compose()
    target = compose["services"]["nginx"]["configs"][0]
    # The whole nginx.conf: worker_connections is set outside the http block.
    assert target == {"source": "nginx-conf", "target": "/etc/nginx/nginx.conf"}
    conf = compose["configs"]["nginx-conf"]["content"]
    assert "server web:8000" in conf and "ip_hash" not in conf and "sticky" not in conf
    # `$$` is compose's escape: nginx reads its own variables, not the shell's.
    assert "proxy_set_header X-Forwarded-For $$proxy_add_x_forwarded_for;" in conf
    assert "proxy_set_header X-Forwarded-Proto $$scheme;" in conf
    assert "proxy_next_upstream error timeout;" in conf and "non_idempotent" not in conf
    # The scraper reads each node directly: the balancer never hands out metrics.
    assert "location = /metrics { return 404; }" in conf


def test_nginx_config_protects_itself_as_the_stacks_does():
    """The per-client limits, the timeouts, the connections and the JSON error pages of
    tools/stack.py's nginx configuration, line for line (`$$` is compose's `$`)."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import stack

    conf = _compose()["configs"]["nginx-conf"]["content"].replace("$$", "$")
    lines = {line.strip() for line in conf.splitlines()}
    for part in (stack.NGINX_MAIN, stack.NGINX_HTTP, stack.NGINX_SERVER, stack.NGINX_API_ERRORS):
        for line in part.splitlines():
            assert line.strip() in lines, line
    for directive in ("limit_conn per_client_conn", "limit_req zone=per_client_req",
                      "client_header_timeout", "worker_connections 16384"):  # fmt: skip
        assert directive in conf
