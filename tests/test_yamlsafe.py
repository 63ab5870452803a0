"""The bounded YAML reader: bombs and oversized files are refused in one line before memory grows."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from arena import yamlsafe
from arena.yamlsafe import MAX_BYTES, MAX_DEPTH, MAX_VALUES, YamlError

LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""
"""The classic "billion laughs": 9**9 strings from 9 short lines."""

MERGES = """\
a: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1}
b: &b {<<: [*a,*a,*a,*a,*a,*a,*a,*a,*a]}
c: &c {<<: [*b,*b,*b,*b,*b,*b,*b,*b,*b]}
d: &d {<<: [*c,*c,*c,*c,*c,*c,*c,*c,*c]}
e: &e {<<: [*d,*d,*d,*d,*d,*d,*d,*d,*d]}
f: &f {<<: [*e,*e,*e,*e,*e,*e,*e,*e,*e]}
g: &g {<<: [*f,*f,*f,*f,*f,*f,*f,*f,*f]}
"""
"""The same through merge keys, which copy what they refer to."""


def refusal(path: Path, text: str) -> str:
    path.write_text(text)
    with pytest.raises(YamlError) as info:
        yamlsafe.read(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


@pytest.mark.parametrize("text", [LAUGHS, MERGES], ids=["aliases", "merges"])
def test_an_alias_bomb_is_refused_before_memory_grows(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    tracemalloc.start()
    try:
        with pytest.raises(YamlError) as info:
            yamlsafe.read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(info.value).startswith(f"{path}:")
    assert f"YAML aliases expand to over {MAX_VALUES:,} values; write the values out or use fewer aliases" \
        in str(info.value)
    assert peak < 4 * 1024 * 1024  # the document is 9 lines; 9**9 values would be gigabytes


def test_ordinary_anchors_aliases_and_merges_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("shared: &field [a, b, c]\nbase: &base {move_ms: 100, bank_ms: 5}\n"
                    "one: *field\ntime: {<<: *base, move_ms: 200}\n")
    document = yamlsafe.read(path)
    assert document.data == {"shared": ["a", "b", "c"], "base": {"move_ms": 100, "bank_ms": 5},
                             "one": ["a", "b", "c"], "time": {"move_ms": 200, "bank_ms": 5}}
    assert document.root is not None
    keys = [key.value for key, _ in document.root.value[3][1].value]
    assert keys == ["<<", "move_ms"]  # the node tree keeps the merge key where it was written


def test_an_empty_file_loads_as_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert yamlsafe.read(path) == yamlsafe.Document(None, None)


def test_a_file_over_the_size_bound_is_refused(tmp_path: Path) -> None:
    message = refusal(tmp_path / "big.yaml", "# " + "x" * MAX_BYTES + "\nname: x\n")
    assert message == f"{tmp_path / 'big.yaml'}: larger than 1024 KiB, the most a YAML file may hold here; " \
                      "this file should be a few KB"


def test_many_plain_values_are_refused_without_blaming_aliases(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe, "MAX_VALUES", 50)  # the bound's size does not matter; parsing 100,000 is slow
    message = refusal(tmp_path / "flat.yaml", "[" + "0," * 60 + "0]\n")
    assert "holds over 50 values; a tournament or bot file needs far fewer" in message and "alias" not in message


def test_deep_nesting_is_refused_in_one_line(tmp_path: Path) -> None:
    message = refusal(tmp_path / "deep.yaml", "[" * 1000 + "]" * 1000 + "\n")
    assert f"nested over {MAX_DEPTH} deep" in message


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path: Path) -> None:
    message = refusal(tmp_path / "loop.yaml", "a: &a [1, *a]\n")
    assert message.startswith(f"{tmp_path / 'loop.yaml'}:1: ") and "refers to a value that contains it" in message


@pytest.mark.parametrize("digits", ["9" * 5000, "0b" + "1" * 20_000, "0x" + "f" * 99])
def test_an_integer_too_long_to_print_is_refused(tmp_path: Path, digits: str) -> None:
    """Python reads a long ``0b`` integer but cannot put it in a message: it must not get that far."""
    message = refusal(tmp_path / "digits.yaml", "name: x\nseed: " + digits + "\n")
    assert message == f"{tmp_path / 'digits.yaml'}:2: an integer written with over 100 characters; no setting " \
                      "takes one"


def test_a_value_yaml_cannot_construct_is_one_line(tmp_path: Path) -> None:
    message = refusal(tmp_path / "float.yaml", "a: !!float many\n")
    assert message == f"{tmp_path / 'float.yaml'}: not a usable YAML value: could not convert string to float: 'many'"


def test_a_nul_character_is_one_line(tmp_path: Path) -> None:
    message = refusal(tmp_path / "nul.yaml", "name: x\0\n")
    assert "not valid YAML: unacceptable character #x0000" in message


def test_bad_yaml_is_one_line_with_its_line(tmp_path: Path) -> None:
    message = refusal(tmp_path / "bad.yaml", "name: x\nbots: [a, b\n")
    assert message.startswith(f"{tmp_path / 'bad.yaml'}:3: not valid YAML: ")


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(YamlError, match="not a regular file"):
        yamlsafe.read(fifo)


def test_a_directory_is_named_as_the_kind_of_file_wanted(tmp_path: Path) -> None:
    with pytest.raises(YamlError) as info:
        yamlsafe.read(tmp_path, kind="tournament file")
    assert str(info.value) == f"{tmp_path}: is a directory, not a tournament file"
