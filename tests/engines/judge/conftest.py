"""The judge engine tests share the loopback fake server fixtures of the judge metric tests."""

from tests.judge.conftest import cache_path, server

__all__ = ["cache_path", "server"]
