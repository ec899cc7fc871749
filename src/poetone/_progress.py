"""Progress bars for the long commands: on a terminal only, silent in pipes, files and CI.

``poetone score --jsonl``, ``report``, ``bon`` and ``probe`` can run for minutes. A person at a
terminal wants to see that they move; a pipe, a log file or a CI job wants only the results, so
the bar is drawn with ``rich`` (as Inspect draws its own) only when stderr is a terminal and
neither ``CI`` nor ``TERM=dumb`` says otherwise. Messages printed while a bar is shown go through
``Progress.print`` so that they appear above the bar instead of tearing it.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import Any, TextIO


def wanted(stream: TextIO | None = None) -> bool:
    """Should a progress bar be drawn on ``stream`` (default: stderr)?"""
    stream = sys.stderr if stream is None else stream
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Progress:
    """One task's progress on stderr, or nothing at all when ``wanted()`` is false.

    ``total`` is in whatever unit ``advance`` counts (lines, bytes, files); None draws a pulsing
    bar. ``enabled`` forces the decision (tests, or a caller that knows better).
    """

    def __init__(
        self, description: str, total: float | None = None, stream: TextIO | None = None, enabled: bool | None = None
    ):
        self.description = description
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.enabled = wanted(self.stream) if enabled is None else enabled
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            console = Console(file=self.stream, force_terminal=True)
            self._bar = RichProgress(
                TextColumn("[progress.description]{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,  # the bar goes when the work is done; the results stay
                redirect_stdout=False,  # stdout may be the data itself (score --jsonl)
            )
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=self.total, detail="")
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def advance(self, amount: float = 1, detail: str | None = None) -> None:
        """Count ``amount`` more units done; ``detail`` replaces the text beside the bar."""
        if self._bar is not None:
            fields = {} if detail is None else {"detail": detail}
            self._bar.update(self._task, advance=amount, **fields)

    def print(self, message: str) -> None:
        """Write a line to stderr, above the bar when one is shown."""
        if self._bar is not None:
            self._bar.console.print(message, markup=False, highlight=False, soft_wrap=True)
        else:
            print(message, file=self.stream)
