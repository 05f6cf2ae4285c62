"""The one-time compilation of the numba kernels is announced, once, on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from microsdc.cli import _common


def _dispatcher(index: dict[object, object]) -> object:
    cache_file = types.SimpleNamespace(_load_index=lambda: index)
    return types.SimpleNamespace(_cache=types.SimpleNamespace(_cache_file=cache_file))


@pytest.fixture
def fake_kernels(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("fake_kernels")
    monkeypatch.setitem(sys.modules, "fake_kernels", module)
    monkeypatch.setattr(_common, "KERNEL_MODULES", {"fake": ("fake_kernels",)})
    return module


def test_cold_when_no_kernel_is_cached(
    fake_kernels: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_kernels.a = _dispatcher({})
    fake_kernels.b = _dispatcher({})
    fake_kernels.helper = len  # not a kernel
    assert _common.cold_kernels(("fake",)) == ["fake_kernels"]
    assert _common.announce_compile("fake") is True
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling microsdc's numerical kernels" in err
    assert "once" in err


def test_warm_when_one_kernel_is_cached(
    fake_kernels: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_kernels.a = _dispatcher({})
    fake_kernels.b = _dispatcher({("sig",): "entry"})
    assert _common.cold_kernels(("fake",)) == []
    assert _common.announce_compile("fake") is False
    assert capsys.readouterr().err == ""


def test_a_part_is_compiled_once_one_of_its_route_modules_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # two alternative routes of one part: a run that took one leaves the other cold
    used, unused, other = (types.ModuleType(n) for n in ("used_route", "unused_route", "other"))
    used.a = _dispatcher({("sig",): "entry"})
    unused.a = _dispatcher({})
    other.a = _dispatcher({})
    for module in (used, unused, other):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    parts = {"routes": ("used_route", "unused_route"), "other": ("other",)}
    monkeypatch.setattr(_common, "KERNEL_MODULES", parts)
    assert _common.cold_kernels(("routes",)) == ["unused_route"]
    assert _common.announce_compile("routes") is False
    assert capsys.readouterr().err == ""
    # a part none of whose modules is compiled yet is announced
    assert _common.announce_compile("routes", "other") is True
    assert _common.announce_compile() is True
    assert capsys.readouterr().err.count("compiling microsdc's numerical kernels") == 2


def test_real_kernels_cold_in_an_empty_cache(tmp_path: Path) -> None:
    # a fresh numba cache folder is what a new installation has; nothing is compiled here
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = (
        "from microsdc.cli._common import KERNEL_MODULES, cold_kernels\n"
        "cold = cold_kernels(tuple(KERNEL_MODULES))\n"
        "print(sorted(cold) == sorted(m for ms in KERNEL_MODULES.values() for m in ms))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True", out.stderr
