"""Validate a document once: a query text the schema accepted is accepted again without a walk.

Agents send the same few documents over and over (a search, a job poll);
validating each one walked the whole document through every rule, the
depth, token and alias limits included, and during an import that was the
largest share of the event loop's own work after the searches themselves
(bench/pressure.py). The rules and limits are fixed for a schema, so a text
that passed once passes again: the texts that passed are remembered, in a
bounded LRU per schema (a client sending endless new texts only evicts
older ones). A text that failed is validated each time, so its errors are
always the current request's.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from threading import Lock

from strawberry.extensions import SchemaExtension

MAX_REMEMBERED = 512


class AcceptedTexts:
    """The query texts a schema validated without errors, most recent last (thread-safe)."""

    def __init__(self, size: int = MAX_REMEMBERED) -> None:
        self._size = size
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._lock = Lock()

    def __contains__(self, text: object) -> bool:
        with self._lock:
            if text not in self._texts:
                return False
            self._texts.move_to_end(str(text))
            return True

    def add(self, text: str) -> None:
        """Remember ``text``; forget the least recently seen beyond the size."""
        with self._lock:
            self._texts[text] = None
            self._texts.move_to_end(text)
            while len(self._texts) > self._size:
                self._texts.popitem(last=False)


def skip_validation_seen(accepted: AcceptedTexts) -> Callable[[], SchemaExtension]:
    """An extension factory: skip validating texts in ``accepted``, remember those that pass."""

    class SkipValidationSeen(SchemaExtension):
        def on_validate(self) -> Iterator[None]:
            context = self.execution_context
            text = context.query
            if text is not None and text in accepted:
                # strawberry validates only while no errors are set
                context.pre_execution_errors = []
            yield
            if text is not None and context.pre_execution_errors == []:
                accepted.add(text)

    return SkipValidationSeen
