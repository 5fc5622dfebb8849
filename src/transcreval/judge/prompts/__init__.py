"""The built-in prompt templates, one module per paper (see :mod:`transcreval.judge.catalog`)."""
