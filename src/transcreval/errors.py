"""Exceptions raised by transcreval.

Every error a user can cause with bad input is an :class:`InputError` (a ``ValueError``), so
``except ValueError`` keeps working, and each message says what was wrong and how to fix it.
"""

from __future__ import annotations


class TranscrevalError(Exception):
    """Base class of every transcreval-specific exception."""


class InputError(TranscrevalError, ValueError):
    """An argument has the wrong shape, dtype, value range, type or length."""


class ImageDecodeError(InputError):
    """An image file or byte string could not be decoded safely (corrupt, truncated, too large)."""


class UndefinedValueError(InputError):
    """The statistic is undefined on these data (constant input, one class only, too few items).

    ``Metric.forward`` turns it into an undefined batch result (``result.defined`` is False)
    instead of raising; ``compute`` and the functional twins raise it.
    """


class EmptyInputError(UndefinedValueError):
    """A batch, or a metric's accumulated state, holds no items to score."""


class MissingDependencyError(TranscrevalError, ImportError):
    """An optional package a metric needs is not installed; the message names the pip extra."""

    def __init__(self, what: str, package: str, extra: str) -> None:
        super().__init__(
            f"{what} needs the package {package!r}, which is not installed: pip install 'transcreval[{extra}]'"
        )
        self.package = package
        self.extra = extra


class SyncError(TranscrevalError, RuntimeError):
    """Metric states could not be synchronised across processes."""


class UndefinedValueWarning(UserWarning):
    """``forward`` met a batch whose own value is undefined; the batch was still accumulated."""


class WeightsError(TranscrevalError):
    """Base class of the errors about model files (weights)."""


class WeightsNotFoundError(WeightsError, FileNotFoundError):
    """A model file is in none of the places searched and could not be downloaded.

    The message lists every place searched and the ``transcreval weights fetch NAME --to DIR``
    command that fetches the file on a connected machine; ``searched`` holds the same list and
    ``command`` the command.
    """

    def __init__(self, message: str, name: str = "", searched: tuple[str, ...] = (), command: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.searched = searched
        self.command = command

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class WeightsIntegrityError(WeightsError, ValueError):
    """A model file's size or sha256 is not the manifest's (truncated, corrupt or another version)."""


class WeightsFormatError(WeightsError, ValueError):
    """A model file loads, but its keys or shapes do not match the network (strict loading)."""


class SignatureMismatchError(InputError):
    """Saved statistics (an FID reference) were computed with other settings (weights,
    preprocessing, network dtype) than the metric that loads them; the message names each difference."""


class StateMismatchError(SignatureMismatchError, TypeError):
    """Metric states (a ``state_dict``, ``merge_state``, another rank at ``sync``) were made by
    a metric of this class built with other options: combining them would mix two metrics."""


class JudgeError(TranscrevalError):
    """A VLM/LLM judge could not be used: misconfigured, unreachable, or a cache problem."""


class JudgeConfigError(JudgeError, InputError):
    """The judge endpoint rejects the configuration (API key, model name, URL); no call can succeed."""


class JudgeUnreachableError(JudgeError, ConnectionError):
    """The judge endpoint never answered (wrong URL, server down, no network)."""


class JudgeCacheMiss(JudgeError, KeyError):
    """A replay-only judge (or a read-only cache) was asked for an answer it does not hold."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class JudgeCacheError(JudgeError):
    """The judge response cache file is missing, unreadable, or of an unknown schema."""


class JudgeFailure(JudgeError):
    """A judge answer failed (api_error, refused, timeout, truncated, unparsable) under on_failure="raise"."""


class FeatureCacheError(TranscrevalError, OSError):
    """The on-disk feature cache cannot be opened, read or written (the message names the file)."""


class JudgeModelWarning(UserWarning):
    """The judge endpoint answered as another model than the one asked for (a dated snapshot of
    it, such as ``gpt-4o-2024-08-06`` for ``gpt-4o``, is not another model)."""


class UnverifiedWeightsWarning(UserWarning):
    """A weights file was downloaded or used without a sha256 check, because its manifest entry
    has no digest (``sha256_note`` says why). Its digest is still recorded in result signatures."""


class WeightsChangedError(WeightsError, RuntimeError):
    """A weights file changed on disk after a metric loaded it (e.g. a checkpoint re-saved at the
    same path): the metric would mix two models under one signature, so it refuses. Build a new
    metric to score with the new file."""


class HeldCallsError(TranscrevalError, RuntimeError):
    """The deferred network pass over a metric's held ``update`` calls failed
    (:mod:`transcreval.core.held_calls`): the calls are still held, none was merged; the cause is
    chained. Fix it and read the metric again, or ``reset()`` to drop them."""
