"""Publishing the files of one run together: all are written first, each under a
temporary name beside its target, then all are moved into place; when any of them
fails, the files of the previous run are left as they were, every one of them."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["publish_together"]


@dataclass
class _Slot:
    """One file of the set: its target, its private folder and the files in it."""

    target: Path
    folder: Path
    new: Path = field(init=False)
    previous: Path = field(init=False)
    had_previous: bool = False

    def __post_init__(self) -> None:
        self.new = self.folder / self.target.name
        self.previous = self.folder / f"previous-{self.target.name}"


def _keep_previous(slot: _Slot) -> None:
    """A second name (a hard link, else a copy) for the file the target names now."""
    if not os.path.lexists(slot.target):
        return
    try:
        os.link(slot.target, slot.previous, follow_symlinks=False)
    except OSError:  # no hard links on this file system
        shutil.copy2(slot.target, slot.previous, follow_symlinks=False)
    slot.had_previous = True


def _restore(published: list[_Slot]) -> None:
    """Put back what the targets named before ``published`` were moved into place."""
    for slot in reversed(published):
        try:
            if slot.had_previous:
                os.replace(slot.previous, slot.target)
            else:
                os.unlink(slot.target)
        except OSError:  # best effort: the first error is the one reported
            continue


def publish_together(files: Sequence[tuple[Path, Callable[[Path], object]]]) -> None:
    """Write every file of ``files`` and move them into place together.

    Parameters
    ----------
    files : sequence of (pathlib.Path, callable)
        Each target path and ``writer(tmp)``, which writes the file's content to
        ``tmp``, a path of the same name in a private folder beside the target (so a
        writer that picks the format from the extension, or a gzip header that names
        the file, sees the final name).

    Raises
    ------
    Exception
        Whatever a writer raises, or the ``OSError`` of a move into place. Then no
        target has changed: the files written so far are removed and the targets
        already replaced get their previous file back (or are removed, when there
        was none).

    Notes
    -----
    The targets' folders must exist. A move within a folder (``os.replace``) is
    atomic, so a reader sees a target's old file or its new one, never a part;
    the set as a whole is published one file after the other, and put back when
    one of the moves fails.
    """
    slots: list[_Slot] = []
    try:
        for target, _ in files:
            folder = tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent)
            slots.append(_Slot(Path(target), Path(folder)))
        umask = os.umask(0)
        os.umask(umask)
        for slot, (_, writer) in zip(slots, files, strict=True):
            writer(slot.new)
            os.chmod(slot.new, 0o666 & ~umask)
        for slot in slots:
            _keep_previous(slot)
        published: list[_Slot] = []
        try:
            for slot in slots:
                os.replace(slot.new, slot.target)
                published.append(slot)
        except BaseException:
            _restore(published)
            raise
    finally:
        for slot in slots:
            shutil.rmtree(slot.folder, ignore_errors=True)
