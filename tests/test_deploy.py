"""deploy/k8s-indexed-job.yaml held to Kubernetes' own API schema: `kubernetes-validate --strict`
(which bundles each release's schemas, so it runs offline) against the newest release it knows.
The recipes' shell lines are run with every index in tests/test_parts.py; deploy/slurm.sbatch
meets a real Slurm in tests/test_slurm.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from kubernetes_validate.utils import latest_version
from packaging.version import Version

MANIFEST = Path(__file__).parent.parent / "deploy" / "k8s-indexed-job.yaml"
VALIDATE = str(Path(sys.executable).parent / "kubernetes-validate")
OLDEST = Version("1.37.0")  # the newest release when this test was written (2026-12)


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [VALIDATE, "--strict", "-k", latest_version(), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_indexed_job_passes_the_newest_kubernetes_schema() -> None:
    newest = Version(latest_version())
    assert newest >= OLDEST  # a current release, not an old schema
    done = validate(MANIFEST)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = (
        f"passed for resource job/agentsense-run1 against version {newest.major}.{newest.minor}"
    )
    assert passed in done.stdout + done.stderr


def test_the_validator_refuses_a_field_kubernetes_does_not_have(tmp_path: Path) -> None:
    """The check bites: a misspelt field (strict: no unknown properties) and a wrong type."""
    job = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    job["spec"]["completionsMode"] = job["spec"].pop("completionMode")
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(yaml.safe_dump(job), encoding="utf-8")
    job = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    job["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = 8  # not a string
    untyped = tmp_path / "untyped.yaml"
    untyped.write_text(yaml.safe_dump(job), encoding="utf-8")
    for path, field in [(misspelt, "completionsMode"), (untyped, "8")]:
        done = validate(path)
        assert done.returncode != 0 and field in done.stdout + done.stderr, done.stdout
