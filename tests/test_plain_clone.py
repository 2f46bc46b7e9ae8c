"""A user's clone has nothing beside it: the tests that read ``../shared`` skip with a reason naming
the file, and the rest pass (CI, which has ``../shared``, sets PERTURBER_REQUIRE_SHARED=1 instead)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The test files that read ../shared, and those that depend on the environment (the reference, the
# optional tiers' data).
READERS = [
    "tests/test_brittlebench.py",
    "tests/test_docs.py",
    "tests/test_gallery.py",
    "tests/test_golden.py",
    # its typed routes of native entries do not depend on ../shared
    "tests/test_schemathesis.py::test_catalog_generic_and_tier_routes_never_fail_and_conform",
]


@pytest.fixture(scope="module")
def plain_copy(tmp_path_factory) -> pathlib.Path:
    """The tracked files of this checkout, in a folder with nothing beside it."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    if not files:
        pytest.skip("not a git checkout")
    target = tmp_path_factory.mktemp("plain") / "perturber"
    target.mkdir()
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            dest = target / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes((ROOT / name).read_bytes())
    return target


def _pytest(where: pathlib.Path, *args: str, require: bool = False) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PERTURBER_REQUIRE_SHARED", "PERTURBER_BRITTLEBENCH_EMOTION_FILE")
    }
    if require:
        env["PERTURBER_REQUIRE_SHARED"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly", "-p", "no:xdist", *args]
    return subprocess.run(cmd, cwd=where, env=env, capture_output=True, text=True)


@pytest.mark.slow
def test_a_plain_clone_collects_everything_and_passes_without_shared(plain_copy):
    assert not (plain_copy.parent / "shared").exists()
    collected = _pytest(plain_copy, "--collect-only", "--assert=plain")  # no rewrite: collection only
    assert collected.returncode == 0, collected.stdout[-3000:]
    done = _pytest(plain_copy, *READERS)
    assert done.returncode == 0, done.stdout[-3000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("needs ../shared/" in line for line in skips if "chromium" not in line), skips
    assert any("vectors/brittlebench" in line for line in skips)


@pytest.mark.slow
def test_require_shared_turns_such_a_skip_into_a_failure(plain_copy):
    done = _pytest(plain_copy, "tests/test_brittlebench.py::test_the_suite_covers_3859_rows", require=True)
    assert done.returncode == 1 and "PERTURBER_REQUIRE_SHARED=1" in done.stdout
