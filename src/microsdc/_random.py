"""The one place where ``seed`` arguments become :class:`numpy.random.Generator` objects."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    SeedLike = int | np.random.Generator | np.random.SeedSequence | None
else:
    SeedLike = object

__all__ = ["SeedLike", "check_random_state", "spawn"]


def check_random_state(
    seed: SeedLike, name: str = "seed", func: str | None = None
) -> np.random.Generator:
    """Return a Generator for ``seed``.

    Parameters
    ----------
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        ``None`` draws fresh entropy from the operating system; an int >= 0 or a
        SeedSequence gives a reproducible stream; a Generator is used as it is
        (and advanced by the caller's use).
    name : str, default "seed"
        Parameter name used in the error message.
    func : str, optional
        The public function whose ``seed`` this is (the error's ``func`` field).

    Raises
    ------
    InvalidParameterError
        If ``seed`` is a bool, a negative int or of another type.
    """
    import numbers

    import numpy as np

    from microsdc.exceptions import InvalidParameterError

    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return np.random.default_rng(int(seed))
    of = f" of {func}" if func else ""
    raise InvalidParameterError(
        f"The '{name}' parameter{of} must be an int >= 0, a numpy.random.Generator or None. "
        f"Got {seed!r} instead.",
        func=func,
        param=name,
    )


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """Return ``n`` independent child generators of ``rng`` (``SeedSequence.spawn`` semantics)."""
    return list(rng.spawn(n))
