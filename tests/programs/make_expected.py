"""Record ``expected/NAME.out`` for every program from real PyTorch (2.13 when recorded).

``python -m tests.programs.make_expected [NAME...]`` runs the programs under the
interpreter that has torch (see ``harness.torch_python``) twice and refuses to record a
program whose two outputs differ (a nondeterministic program is no reference).
"""

from __future__ import annotations

import sys

from tests.programs.harness import EXPECTED, program_paths, run_programs


def main(names: list[str]) -> None:
    paths = [p for p in program_paths() if not names or p.stem in names]
    first = run_programs("torch", paths)
    second = run_programs("torch", paths)
    EXPECTED.mkdir(exist_ok=True)
    for path in paths:
        stem = path.stem
        result = first[stem]
        if result["out"] != second[stem]["out"]:
            print(f"NOT recorded {stem}: two torch runs differ")
            continue
        if result["error"] is not None:
            print(f"note {stem}: torch raised {result['error']} ({result['where']})")
        (EXPECTED / f"{stem}.out").write_text(result["out"])
        print(f"recorded {stem}.out ({result['seconds']:.2f} s under torch)")


if __name__ == "__main__":
    main(sys.argv[1:])
