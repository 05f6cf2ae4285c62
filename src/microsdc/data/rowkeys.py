"""Keys of records fixed by their values, not their position: the same record gets the same
key whatever the order of the rows (random draws and tie-breaks that do not depend on it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "key_normals",
    "key_salt",
    "key_uniforms",
    "mix64",
    "ordered_record_keys",
    "random_order",
    "record_keys",
]


def record_keys(df: pd.DataFrame, where: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit key per record fixed by its values (and its ``where`` flag), not its position.

    Identical records are told apart by their number among themselves, in the order of
    their row labels; they are interchangeable, so which gets which number changes no
    count of the release. Drawing each record's uniform number from its key
    (PRAM, noise) makes the release the same whatever order the rows came in,
    and an engine can compute the same keys row by row.
    """
    h = _value_keys(df, where)
    occurrence = _occurrence(h, df.index)
    return h if occurrence is None else _told_apart(h, occurrence)


def ordered_record_keys(
    df: pd.DataFrame, where: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`record_keys` and the rows in the order of their keys
    (``np.argsort(keys, kind="stable")``).

    One sort when the keys differ: numpy's default sort (vectorised, not stable) orders
    distinct keys as any sort does; equal keys (identical records) are told apart first
    and sorted again, stably.
    """
    h = _value_keys(df, where)
    order = np.argsort(h)
    ordered = h[order]
    if not (ordered[1:] == ordered[:-1]).any():
        return h, order
    del ordered
    occurrence = _occurrence(h, df.index, known_duplicates=True)
    keys = h if occurrence is None else _told_apart(h, occurrence)
    return keys, np.argsort(keys, kind="stable")


def _value_keys(df: pd.DataFrame, where: np.ndarray | None) -> np.ndarray:
    """Each record's key from its values and ``where`` flag (equal for equal records)."""
    h = np.full(len(df), np.uint64(0x243F6A8885A308D3), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in df.columns:
            try:
                hc = pd.util.hash_pandas_object(df[c], index=False).to_numpy(np.uint64)
            except TypeError:  # values that cannot be hashed (lists): left out of the key
                continue
            h *= np.uint64(1_000_003)
            h ^= hc
            del hc
            mix64(h)
        if where is not None:
            h ^= where.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return h


def random_order(df: pd.DataFrame) -> np.ndarray:
    """The positions of ``df``'s rows in the order of a hash of their values: a release
    order that says nothing about the input's order (an input sorted by a key variable
    would let the records around a blanked cell tell its value) and needs no seed, since
    it follows from the released values only.

    Returns
    -------
    numpy.ndarray of int64, shape (n_rows,)
        ``df.iloc[order]`` is the release in that order.
    """
    return np.argsort(record_keys(df.reset_index(drop=True)), kind="stable").astype(np.int64)


def _told_apart(h: np.ndarray, occurrence: np.ndarray) -> np.ndarray:
    """The keys of identical records made distinct by their ``occurrence`` number."""
    with np.errstate(over="ignore"):
        occurrence *= np.uint64(0xD1B54A32D192ED03)
        h += occurrence
        mix64(h)
    return h


def _occurrence(
    keys: np.ndarray, index: pd.Index, known_duplicates: bool = False
) -> np.ndarray | None:
    """Each record's number among the records with the same key, in the order of their
    row labels (so reordering a frame's rows keeps each label's draw); None when every
    key is distinct."""
    n = len(keys)
    if not known_duplicates and not pd.Series(keys).duplicated().any():  # no sort if all differ
        return None
    try:
        by_label = np.asarray(index.argsort(), dtype=np.int64)
    except TypeError:  # labels that cannot be ordered: the rows' order
        by_label = np.arange(n, dtype=np.int64)
    order = by_label[np.argsort(keys[by_label], kind="stable")]
    ordered = keys[order]
    new_group = np.empty(n, dtype=bool)
    new_group[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new_group[1:])
    del ordered
    if new_group.all():
        return None
    position = np.arange(n, dtype=np.int64)
    first = np.where(new_group, position, 0)
    np.maximum.accumulate(first, out=first)
    position -= first
    del first
    out = np.empty(n, dtype=np.uint64)
    out[order] = position
    return out


def mix64(z: np.ndarray) -> None:
    """The SplitMix64 finaliser (Steele, Lea & Flood 2014), in place: a bijection of
    64-bit words whose output bits each depend on every input bit."""
    with np.errstate(over="ignore"):
        z += np.uint64(0x9E3779B97F4A7C15)
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)


def key_uniforms(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform number in [0, 1) per record, from its key and a key drawn from ``rng``."""
    salt = key_salt(rng)
    with np.errstate(over="ignore"):
        z = keys ^ (salt * np.uint64(2) + np.uint64(1))
        mix64(z)
        z >>= np.uint64(11)
    u = z.astype(np.float64)
    u *= 2.0**-53
    return u


def key_salt(rng: np.random.Generator) -> np.uint64:
    """The salt of :func:`key_uniforms`: one draw from ``rng`` (an engine computing the
    uniforms itself takes the same draw)."""
    return np.uint64(rng.integers(0, 2**63, dtype=np.uint64, endpoint=False))


def key_normals(keys: np.ndarray, rng: np.random.Generator, n_columns: int) -> np.ndarray:
    """Standard normal numbers, shape (len(keys), n_columns), each record's from its key
    (Box-Muller on two :func:`key_uniforms` streams per column)."""
    out = np.empty((len(keys), n_columns))
    for j in range(n_columns):
        # sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1], each step in place
        u1 = key_uniforms(keys, rng)
        np.subtract(1.0, u1, out=u1)
        u2 = key_uniforms(keys, rng)
        np.log(u1, out=u1)
        u1 *= -2.0
        np.sqrt(u1, out=u1)
        u2 *= 2.0 * np.pi
        np.cos(u2, out=u2)
        np.multiply(u1, u2, out=out[:, j])
    return out
