"""JSON as the standard has it: Python's reader also takes ``NaN`` and ``Infinity``; this one does not.

A ``NaN`` let in would come back out of every answer that holds it, and
strict JSON writers (the dashboard's, Starlette's) refuse it: one bad
number from a table would break its every view.

>>> loads('{"board": 1}')
{'board': 1}
>>> loads('[1, NaN]')
Traceback (most recent call last):
...
ValueError: NaN is not a JSON number
"""

from __future__ import annotations

import json
from typing import Any


def no_constants(name: str) -> Any:
    """``parse_constant`` for :func:`json.loads`: refuse ``NaN``, ``Infinity``, ``-Infinity``."""
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """:func:`json.loads` without the non-standard constants.

    Raises ``ValueError`` (``json.JSONDecodeError`` included) for anything
    unreadable: bad syntax, bad UTF-8, a constant, an integer of more digits
    than Python converts (4,300); ``RecursionError`` for absurd nesting.
    """
    return json.loads(text, parse_constant=no_constants)
