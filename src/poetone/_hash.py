"""The short content hash every versioned thing records (prompts, rubric, cipai resource)."""

import hashlib


def short_sha256(*parts: str | bytes) -> str:
    """First 12 hex digits of the SHA-256 of the parts, in order (strings as UTF-8)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
    return h.hexdigest()[:12]
