"""A Python file outside the package (a script under scripts/, a Flow spec) imported as a module,
so that tests read its constants and call its functions instead of copying them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def file_module(path: Path, name: str) -> ModuleType:
    """The file at `path`, executed as the module `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
