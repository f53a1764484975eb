"""Fixtures of the Python package's tests: the repository root and the `vito` command line."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root (problems/, robots/, examples/)."""
    return ROOT


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `vito` binary: $VITO_CLI if set, else target/release/vito built from this checkout
    (`cargo build --release`, a no-op when up to date), else a target/release/vito already
    there; the tests that need it are skipped without one."""
    if os.environ.get("VITO_CLI"):
        return Path(os.environ["VITO_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "release" / "vito"
    if shutil.which("cargo"):
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "vito"], cwd=ROOT, check=True)
    if not binary.is_file():
        pytest.skip("no vito binary: set VITO_CLI or install cargo")
    return binary
