"""Packaged tables: recorded checksums, provenance and read-only loading."""

import json
from importlib import resources

import pytest

from perturber.data import load_table, table_digests


def recorded():
    text = resources.files("perturber.data").joinpath("SHA256SUMS").read_text()
    return {name: digest for digest, name in (line.split("  ") for line in text.splitlines())}


def test_every_table_matches_its_recorded_sha256():
    assert table_digests() == recorded(), (
        "a table changed: bump the versions of the entries "
        "using it, regenerate golden files, then `python -m perturber.data`"
    )


def test_every_table_states_its_provenance_and_is_listed_in_the_readme():
    readme = resources.files("perturber.data").joinpath("README.md").read_text()
    for name in table_digests():
        data = json.loads(resources.files("perturber.data").joinpath(name).read_text())
        assert "written for this project" in data["provenance"], name
        stem = name.split("_")[0]
        assert stem in readme, name


def test_loaded_tables_are_read_only():
    table = load_table("a13_abbreviations")
    with pytest.raises(TypeError):
        table["abbreviations"] = ()
    assert isinstance(table["abbreviations"], tuple)
