"""PosterIQ's aggregate table (Table 7): group means of positively oriented scores."""

from transcreval.functional.posteriq import GROUP_ORDER, POSTERIQ_EXCLUDED, POSTERIQ_GROUPS, posteriq_summary

__all__ = ["GROUP_ORDER", "POSTERIQ_EXCLUDED", "POSTERIQ_GROUPS", "posteriq_summary"]
