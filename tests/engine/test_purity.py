"""The engine is pure: importing it (and running its CLI module) loads no Django."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_engine_loads_no_django():
    code = (
        "import sys, importlib, pkgutil, games.engine as e\n"
        "for m in pkgutil.iter_modules(e.__path__):\n"
        "    importlib.import_module('games.engine.' + m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'django' or n.startswith('django.'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
