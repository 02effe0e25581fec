"""Where the project keeps files it fetched or built: the official data, the prepared SmolLM2."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_DIR_ENV = "AGENTSENSE_CACHE_DIR"


def cache_dir() -> Path:
    """`AGENTSENSE_CACHE_DIR`, else the user cache folder (e.g. `~/.cache/agentsense`)."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("agentsense", appauthor=False))
