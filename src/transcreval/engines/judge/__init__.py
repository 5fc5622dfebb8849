"""The judge engine: clients, cache, replay, parsing, templates, pipeline, fake server.

Import the public names from :mod:`transcreval.judge`; the judge metrics live there too.
"""
