"""``python -m transcreval.cli``: the same as the ``transcreval`` command."""

from transcreval.cli import main

raise SystemExit(main())
