"""Run corpus programs under one engine and report their output as JSON.

``python tests/programs/runner.py ENGINE PROGRAM...`` (ENGINE is ``st`` or ``torch``) imports
the engine once, then runs each program in a forked child (isolated global state, a timeout
per program) and prints one JSON object: for each program its stdout, the final
``<ExceptionType>: <message>`` line when it raised, where it raised, and its run time.
``python tests/programs/runner.py ENGINE --serve [cpu|wall]`` reads program paths from
stdin, one a line, runs each in-process with its output discarded and answers with its run
time on that clock (the benchmark drives one server per engine, interleaved).

Under ``st`` the module ``torch`` is ``st_autodiff`` (see ``shim.py``). Both engines run with
one thread so that float results do not depend on the machine's core count.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import runpy
import select
import signal
import sys
import time
import traceback
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

TIMEOUT_S = 30.0


def load_engine(engine: str):  # noqa: ANN201  (returns torch or st_autodiff)
    """Import the engine as ``torch`` and pin it to one thread."""
    if engine == "st":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import shim  # noqa: PLC0415

        return shim.install()
    import torch  # noqa: PLC0415

    torch.set_num_threads(1)
    return torch


def prewarm(torch) -> None:  # noqa: ANN001
    """Pay one-time costs once, before forking: PyTorch imports its compiler stack on the
    first optimizer step (seconds), which each forked child would otherwise repeat."""
    for name in ("torch.utils.data", "torch.optim.lr_scheduler", "torch.autograd.functional",
                 "torch.nn.utils"):
        with contextlib.suppress(Exception):
            __import__(name)
    with contextlib.suppress(Exception):
        param = torch.zeros(1, requires_grad=True)
        for make in (torch.optim.SGD, torch.optim.Adam):
            optimizer = make([param], lr=0.1)
            (param * 2).sum().backward()
            optimizer.step()


def normalise(text: str) -> str:
    """Replace object addresses and temp-dir names, which differ between runs."""
    return re.sub(r"0x[0-9a-fA-F]+", "0x...", text)


def _where(exc: BaseException, path: str) -> str:
    """``line N: source`` of the deepest frame inside the program (for the report)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    if not frames:
        return ""
    frame = frames[-1]
    return f"line {frame.lineno}: {(frame.line or '').strip()}"


def run_one(path: str, torch, clock=time.perf_counter) -> dict[str, object]:  # noqa: ANN001
    """Run ``path`` as ``__main__`` here; its output, error line, place and seconds."""
    out = io.StringIO()
    error, where = None, ""
    start = clock()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            runpy.run_path(path, run_name="__main__")
        except BaseException as exc:  # noqa: BLE001  (any failure is part of the output)
            error = f"{type(exc).__name__}: {exc}"
            where = _where(exc, path)
            print(error)
    seconds = clock() - start
    with contextlib.suppress(Exception):
        torch.set_grad_enabled(True)
    return {"out": normalise(out.getvalue()), "error": error, "where": where,
            "seconds": seconds}


def run_forked(path: str, torch) -> dict[str, object]:  # noqa: ANN001
    """``run_one`` in a forked child, killed after ``TIMEOUT_S``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the result, leave without cleanup handlers
        os.close(read_fd)
        try:
            data = json.dumps(run_one(path, torch)).encode()
        except BaseException as exc:  # noqa: BLE001
            data = json.dumps({"out": "", "error": f"runner: {exc!r}", "where": "",
                               "seconds": 0.0}).encode()
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)
        os._exit(0)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + TIMEOUT_S
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"out": "", "error": f"TIMEOUT after {TIMEOUT_S:.0f} s", "where": "",
                        "seconds": TIMEOUT_S}
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"out": "", "error": f"CRASH (wait status {status})", "where": "",
                "seconds": 0.0}
    return json.loads(b"".join(chunks))


def _private_stdout() -> io.TextIOWrapper:
    """A stream on the real stdout for this runner's answers; file descriptor 1 itself is
    pointed at /dev/null, so that output written below Python (a C library's log line)
    cannot mix into the answers. Programs' ``print`` output is captured separately."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return channel


def serve(torch, clock_name: str) -> None:  # noqa: ANN001
    """Answer each program path on stdin with its in-process run time (JSON line)."""
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    channel = _private_stdout()
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        result = run_one(path, torch, clock)
        with contextlib.suppress(Exception):
            torch.set_default_dtype(torch.float32)
        reply = {"seconds": result["seconds"], "ok": result["error"] is None,
                 "out": result["out"]}
        channel.write(json.dumps(reply) + "\n")
        channel.flush()


def main(argv: list[str]) -> None:
    engine, rest = argv[0], argv[1:]
    torch = load_engine(engine)
    prewarm(torch)
    if rest[:1] == ["--serve"]:
        serve(torch, rest[1] if len(rest) > 1 else "wall")
        return
    channel = _private_stdout()
    fork = hasattr(os, "fork")
    results = {p: (run_forked(p, torch) if fork else run_one(p, torch)) for p in rest}
    channel.write(json.dumps(results))
    channel.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
