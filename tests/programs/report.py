"""``python -m tests.programs.report``: a pass/fail table of the corpus under st_autodiff.

Each program runs under st_autodiff and is compared with PyTorch's output: run live when an
interpreter with torch is found (``harness.torch_python``), else the stored ``expected/``.
For each failure the table shows the first differing line and, when the program raised,
where.
"""

from __future__ import annotations

import sys

from tests.programs.compare import first_difference
from tests.programs.harness import expected_output, program_paths, run_programs, torch_python


def main(names: list[str]) -> int:
    paths = [p for p in program_paths() if not names or p.stem in names]
    st = run_programs("st", paths)
    live = run_programs("torch", paths) if torch_python() else None
    width = max(len(p.stem) for p in paths)
    passed = 0
    total_time = 0.0
    print(f"reference: {'live torch' if live else 'stored expected/ output'}")
    print(f"{'program':<{width}}  {'st s':>6}  result")
    for path in paths:
        stem = path.stem
        result = st[stem]
        total_time += float(result["seconds"])
        reference = str(live[stem]["out"]) if live else expected_output(stem)
        if reference is None:
            status = "NO REFERENCE"
        else:
            difference = first_difference(reference, str(result["out"]))
            if difference is None:
                status = "pass"
                passed += 1
            else:
                where = f" [at {result['where']}]" if result.get("where") else ""
                status = f"FAIL {difference}{where}"
        print(f"{stem:<{width}}  {float(result['seconds']):6.2f}  {status[:300]}")
    print(f"{passed} of {len(paths)} pass; st_autodiff time {total_time:.1f} s")
    return 0 if passed == len(paths) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
