"""``python -m transcreval.cli``: the same as the ``transcreval`` command (as before ``cli`` became a package)."""

from transcreval.cli import main

raise SystemExit(main())
