"""Typed Python client for the Insurance Filing Research Service (/api/v2)."""

from . import models
from .client import IfrsClient, IfrsError, retry_delay

__all__ = ["IfrsClient", "IfrsError", "models", "retry_delay"]
