"""Test-wide settings: property tests are deterministic unless asked otherwise.

Hypothesis draws a fresh random sample on every run by default, so a CI run could fail
on an input no earlier run saw.  The default profile ("ci") derandomizes: the same
examples every run.  ``HYPOTHESIS_PROFILE=explore pytest ...`` searches new ones (and
more of them); a failure found that way becomes a fixed regression test.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="module")
def _freeze_what_survives_a_module() -> Iterator[None]:
    """After each test module, move the objects that survive it (compiled functions kept
    by module-level gradients, parse caches) to the permanent generation: later cyclic
    collections stop re-scanning them.  Without this, a suite-long heap of millions of
    objects made each full collection take seconds, and allocation-heavy tests late in
    the run tens of times slower than alone."""
    yield
    gc.collect()
    gc.freeze()


# --- bke (issue 15, eager runtime on devices) ------------------------------------------
# ``ST_AUTODIFF_TEST_DEVICE=standin pytest tests/runtime ...`` runs every test with the
# CPU device stand-in behind ``cuda`` and ``torch.set_default_device("cuda")``: factories
# then make device tensors, and every silent host conversion in the runtime fails.  Tests
# that read results with ``.numpy()`` fail there by design (PyTorch refuses it for cuda
# tensors too); ``tests/backends/test_eager_standin.py`` is the suite written for it.
# ``ST_AUTODIFF_TEST_DEVICE=standin-lenient`` is the same survey, except that a test's own
# ``.numpy()`` / ``np.asarray`` of a cuda tensor (called from a file under ``tests/``,
# directly or through NumPy) answers with a host copy instead of failing: the test goes
# on past its reads, so what the runtime does after them is checked too.  A read made by
# the runtime itself still fails.  (The copy is not shared: a test that writes through
# ``.numpy()`` into a device tensor's storage sees its write lost.)
_SURVEY = os.environ.get("ST_AUTODIFF_TEST_DEVICE", "").lower()
if _SURVEY == "standin-lenient":
    import sys

    from st_autodiff.runtime.tensor import Tensor

    _strict_numpy = Tensor.numpy

    def _called_from_a_test() -> bool:
        """True when the first caller outside ``tensor.py`` and NumPy is a test file."""
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename.replace(os.sep, "/")
            if not (name.endswith("runtime/tensor.py") or "/numpy/" in name):
                return "/tests/" in name
            frame = frame.f_back  # type: ignore[assignment]
        return False

    # test id -> how many host tensors it read: a result on the host that was meant to be
    # on the device would pass the test unseen, so the summary lists these reads
    _HOST_READS: dict[str, int] = {}
    _CURRENT = [""]

    def _lenient_numpy(self: Tensor, *, force: bool = False) -> object:
        if not force and not self._requires_grad and _called_from_a_test():
            if self.is_cuda:
                return self._host()
            _HOST_READS[_CURRENT[0]] = _HOST_READS.get(_CURRENT[0], 0) + 1
        return _strict_numpy(self, force=force)

    @pytest.fixture(autouse=True)
    def _note_the_test(request: pytest.FixtureRequest) -> None:
        _CURRENT[0] = request.node.nodeid

    Tensor.numpy = _lenient_numpy  # type: ignore[method-assign,assignment]

if _SURVEY in ("standin", "standin-lenient"):

    @pytest.fixture(autouse=True)
    def _default_device_is_the_standin() -> Iterator[None]:
        from st_autodiff.runtime import device, tensor_more

        device.use_standin(True)
        tensor_more.set_default_device("cuda")
        yield
        tensor_more.set_default_device(None)

    _COUNTS = {"passed": 0, "read on the host by the test": 0,
               "expect host text (repr/device)": 0, "failed in the runtime": 0}
    _RUNTIME_FAILURES: list[str] = []

    _CONVERSIONS = ("can't convert cuda", "Implicit conversion to a NumPy array")

    def _test_reads_host(report: pytest.TestReport) -> bool:
        """The failure is the test's own ``.numpy()``/``np.asarray`` of a cuda tensor or
        array (refused as PyTorch and CuPy refuse it), not a host conversion inside the
        runtime: the last frame outside ``tensor.py``, the stand-in and NumPy is a test's."""
        entries = getattr(getattr(report.longrepr, "reprtraceback", None), "reprentries", [])
        paths = [str(getattr(getattr(e, "reprfileloc", None), "path", "")) for e in entries]
        while paths and (paths[-1].endswith(("runtime/tensor.py", "device_standin.py"))
                         or "/numpy/" in paths[-1]):
            paths.pop()
        text = str(report.longrepr)
        return bool(paths) and "tests/" in paths[-1] and any(m in text for m in _CONVERSIONS)

    def _is_assert(report: pytest.TestReport) -> bool:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = str(getattr(crash, "message", ""))
        return message.startswith(("assert", "AssertionError"))

    def _reason(report: pytest.TestReport) -> str:
        """The failure's exception, in one short line (for the list of runtime failures)."""
        crash = getattr(report.longrepr, "reprcrash", None)
        line = str(getattr(crash, "message", "")).splitlines()
        return (line[0] if line else "")[:110]

    def pytest_runtest_logreport(report: pytest.TestReport) -> None:
        if report.when == "call" and report.passed:
            _COUNTS["passed"] += 1
        elif report.failed:
            text = str(report.longrepr)
            # (a doctest prints what it got: ``device='cuda:0'`` in a repr is host text)
            printed = report.capstdout if "TestResults(failed=" in text else ""
            if _test_reads_host(report):
                key = "read on the host by the test"
            elif _is_assert(report) and ("cuda" in text or "+" * 17 in text
                                         or "device='cuda:0'" in printed):
                key = "expect host text (repr/device)"
            else:
                key = "failed in the runtime"
                _RUNTIME_FAILURES.append(f"{report.nodeid}  [{_reason(report)}]")
            _COUNTS[key] += 1

    def pytest_terminal_summary(terminalreporter: object) -> None:
        terminalreporter.write_line(  # type: ignore[attr-defined]
            f"device stand-in mode ({_SURVEY}): "
            + ", ".join(f"{v} {k}" for k, v in _COUNTS.items()))
        for nodeid in _RUNTIME_FAILURES:
            terminalreporter.write_line(f"  runtime failure: {nodeid}")  # type: ignore
        if _SURVEY == "standin-lenient":  # (a result on the host where cuda was meant?)
            for nodeid, n in _HOST_READS.items():
                terminalreporter.write_line(  # type: ignore[attr-defined]
                    f"  reads {n} host tensor(s): {nodeid}")

