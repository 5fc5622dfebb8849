"""The built-in prompt templates as data files, ``<id>.txt`` each (loaded by :mod:`transcreval.engines.judge.catalog`).

One file per template, named by its id (``mptc.aesthetic.txt``, ``khanuja.csi-objects.txt``,
``imtbench.joint-ref.txt``, ...): front matter (id, version, image slots, answer keys), then
the user message. IMTBench's ``-ref`` templates show the translated image beside the reference
image I_tgt (Eq. 4's ``g(I^_tgt, I_tgt)``), the translated image first, and ask for the scores
of the translated image only; those without ``-ref`` show the translated image alone.
"""
