"""A local OpenAI-compatible stub server for integration tests, reliability runs and demos."""

from .faults import Faults, Latency
from .server import RequestRecord, StubServer

__all__ = ["Faults", "Latency", "RequestRecord", "StubServer"]
