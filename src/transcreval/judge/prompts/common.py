"""What every built-in prompt shares."""

from __future__ import annotations

__all__ = ["JSON_ONLY"]

JSON_ONLY = "Reply with a single JSON object and no other text:"
