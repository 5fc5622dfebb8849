"""Warnings that point at the user's code, not at transcreval's internals.

``warn_user(message)`` issues a warning attributed to the first frame outside the transcreval
package, so ``file:line`` in the warning is the caller's ``update(...)`` or ``lpips(...)`` line,
and Python's default filter (once per message and location) shows a repeated warning once.
"""

from __future__ import annotations

import os
import sys
import warnings

#: the transcreval package folder (this module sits in its utils/ subfolder)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the calling function point at the
    first frame outside transcreval (for a call made directly from user code: 2)."""
    frame = sys._getframe(1)  # the function that will call warnings.warn (stacklevel 1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside transcreval."""
    warnings.warn(message, category, stacklevel=user_stacklevel())
