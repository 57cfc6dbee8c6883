"""How long ``import st_autodiff`` takes next to ``import numpy`` (fresh interpreters).

``python benchmarks/import_time.py [--repeat N]`` prints the minimum over N runs of:
NumPy's import alone, st_autodiff's on top of it, and the first use of the eager runtime
(``torch.ones``) and of the compiler (``st.grad``), which load those parts. The target
for the import itself is NumPy's time plus at most 50 ms. A measurement, never a test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

PROBE = r"""
import time
t0 = time.perf_counter(); import numpy
t1 = time.perf_counter(); import st_autodiff as st
t2 = time.perf_counter(); st.ones(3)
t3 = time.perf_counter(); st.grad
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    runs = [tuple(map(float, subprocess.run([sys.executable, "-c", PROBE], check=True,
                                             capture_output=True, text=True).stdout.split()))
            for _ in range(args.repeat)]
    best = [min(r[i] for r in runs) * 1e3 for i in range(4)]
    print(f"import numpy            {best[0]:7.1f} ms")
    print(f"import st_autodiff      {best[1]:7.1f} ms  (on top of NumPy; target <= 50)")
    print(f"first eager op          {best[2]:7.1f} ms  (loads the runtime)")
    print(f"first compiler name     {best[3]:7.1f} ms  (loads libcst and the passes)")


if __name__ == "__main__":
    main()
