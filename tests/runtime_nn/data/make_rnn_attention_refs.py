"""Write ``rnn_attention_torch213.json``: the scenarios of ``rnn_attention_scenarios.py``
run under PyTorch 2.13 (CPU).  Run from the repository root with a torch interpreter::

    PYTHONPATH=. /path/to/torch/python tests/runtime_nn/data/make_rnn_attention_refs.py
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from tests.runtime_nn.rnn_attention_scenarios import SCENARIOS

OUT = Path(__file__).with_name("rnn_attention_torch213.json")


def _rounded(value: object) -> object:
    """Floats to 9 significant digits (enough for float32), recursively."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def main() -> None:
    """One line per stored value, so a regenerated file diffs readably."""
    lines = ["{", f' "produced_by": "torch {torch.__version__} (CPU)",', ' "scenarios": {']
    names = list(SCENARIOS)
    for i, name in enumerate(names):
        result = SCENARIOS[name](torch)
        lines.append(f"  {json.dumps(name)}: {{")
        keys = list(result)
        for j, key in enumerate(keys):
            comma = "," if j < len(keys) - 1 else ""
            lines.append(f"   {json.dumps(key)}: {json.dumps(_rounded(result[key]))}{comma}")
        lines.append("  }" + ("," if i < len(names) - 1 else ""))
    lines += [" }", "}"]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
