"""The COMET engine: the scorer around unbabel-comet and the known COMET checkpoints.

The metric (``COMETScore``) lives in :mod:`transcreval.text.comet`.
"""
