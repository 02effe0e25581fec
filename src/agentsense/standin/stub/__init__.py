"""A local OpenAI-compatible stub server for integration tests, reliability runs and demos."""

from agentsense.standin.stub.faults import Faults, Latency
from agentsense.standin.stub.server import RequestRecord, StubServer

__all__ = ["Faults", "Latency", "RequestRecord", "StubServer"]
