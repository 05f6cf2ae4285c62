"""An error's message in the names its reader typed, worded from the error's fields.

The library names its own parameters and functions ("The 'k' parameter of
local_suppression must be ..."). The command line and job files show the same
errors to users who typed ``-k`` or ``suppression.k`` and never called
``local_suppression``. :func:`render` rewords a message from the fields the error
carries (:class:`~microsdc.exceptions.SDCError` ``func``) and the reader's names: it
replaces the exact phrases the library writes for them, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["render"]

#: How a message names the function it comes from, each dropped before the reader's eyes.
_FUNCTION_JOINTS = (" of ", " given to ", " by ")


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _drop_phrase(message: str, phrase: str) -> str:
    """``message`` without each whole-word occurrence of ``phrase`` (not when a name
    character follows it: " by record_swap" stays in " by record_swap_result")."""
    out, start = [], 0
    while (i := message.find(phrase, start)) >= 0:
        end = i + len(phrase)
        if end < len(message) and _is_name_char(message[end]):
            out.append(message[start:end])
        else:
            out.append(message[start:i])
        start = end
    out.append(message[start:])
    return "".join(out)


def _value_phrases(message: str, param: str, name: str, word: str, func: str | None) -> str:
    """``param='v'`` (and ``param='v' of func``) as the reader writes it: ``--p v``
    on the command line, ``'key' = "v"`` in a job file."""
    head = f"{param}='"
    out, start = [], 0
    while (i := message.find(head, start)) >= 0:
        close = message.find("'", i + len(head))
        if close < 0 or (i > 0 and _is_name_char(message[i - 1])):
            out.append(message[start : i + len(head)])
            start = i + len(head)
            continue
        value = message[i + len(head) : close]
        end = close + 1
        if func and message.startswith(f" of {func}", end):
            after = end + len(f" of {func}")
            if after >= len(message) or not _is_name_char(message[after]):
                end = after
        out.append(message[start:i])
        out.append(f"{name} {value}" if word == "Option" else f'{name} = "{value}"')
        start = end
    out.append(message[start:])
    return "".join(out)


def _quoted_name(message: str, param: str, name: str) -> str:
    """``'param'`` as a whole quoted word replaced by the reader's ``name`` (quoted
    already for a job key, bare for an option)."""
    head = f"'{param}'"
    out, start = [], 0
    while (i := message.find(head, start)) >= 0:
        end = i + len(head)
        glued = (i > 0 and _is_name_char(message[i - 1])) or message.startswith("=", end)
        out.append(message[start:end] if glued else message[start:i] + name)
        start = end
    out.append(message[start:])
    return "".join(out)


def render(exc: BaseException, names: Mapping[str, str], word: str = "Option") -> str:
    """``exc``'s message in the reader's names.

    Parameters
    ----------
    exc : BaseException
        The error; its ``func`` field, where it has one, names the function whose
        phrases are reworded and dropped.
    names : mapping of str to str
        Library parameter -> what the reader wrote it as (``"--risk-variables"``,
        ``"'swapping.risk_variables'"``). Parameters not in it keep their names.
    word : str, default "Option"
        The word before the reader's name ("Option", "Key").

    Returns
    -------
    str
        "The 'p' parameter of f" becomes "<word> <name>", "p='v' of f" becomes
        "<name> v" (``<name> = "v"`` for keys), a bare ``'p'`` of the error's
        ``related`` parameters becomes "<name>", and the phrases that
        name ``func`` (" of f", " given to f", " by f") are dropped.

    Examples
    --------
    >>> from microsdc.exceptions import InvalidParameterError
    >>> e = InvalidParameterError("The 'width' parameter of bin_numeric must be > 0.",
    ...                           func="bin_numeric", param="width")
    >>> render(e, {"width": "--bin"})
    'Option --bin must be > 0.'
    >>> e = InvalidParameterError("method='exact' of local_suppression needs missing='wildcard'.",
    ...                           func="local_suppression", param="method", related=("missing",))
    >>> render(e, {"method": "--method", "missing": "--missing"})
    '--method exact needs --missing wildcard.'
    """
    message = str(exc.args[0]) if exc.args else type(exc).__name__
    func: str | None = getattr(exc, "func", None)
    for param, name in names.items():
        if func:
            message = message.replace(f"The '{param}' parameter of {func}", f"{word} {name}")
            message = message.replace(
                f"the '{param}' parameter of {func}", f"{word.lower()} {name}"
            )
        message = _value_phrases(message, param, name, word, func)
    # a message that names its parameter without the function ("The 'seed' parameter must")
    own: str | None = getattr(exc, "param", None)
    if own is not None and own in names:
        message = message.replace(f"The '{own}' parameter ", f"{word} {names[own]} ")
    # the other parameters the error is about, quoted bare ("takes no 'combs'"); not its
    # own parameter, whose messages quote column names ("Did you mean 'hid'?")
    for param in getattr(exc, "related", ()):
        if param in names:
            message = _quoted_name(message, param, names[param])
    if func:
        for joint in _FUNCTION_JOINTS:
            message = _drop_phrase(message, joint + func)
    return message
