"""Shared pieces of the sub-commands: reading files, parsing lists, errors as exit code 2."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from microsdc.report.console import progress_columns

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "announce_compile",
    "apply_bins",
    "bin_option",
    "console",
    "count",
    "cut_outside_quotes",
    "encoding_option",
    "fail",
    "file_argument",
    "k_option",
    "library_option",
    "missing_option",
    "missing_values_option",
    "on_columns",
    "option_names",
    "out_option",
    "parse_bins",
    "parse_list",
    "parse_missing_values",
    "parse_qi",
    "policy_value",
    "progress",
    "progress_columns",
    "qi_option",
    "random_order_option",
    "read_input",
    "records_callback",
    "refuse_alone",
    "release_missing_option",
    "report_warnings",
    "seed_option",
    "sep_option",
    "split_name_value",
    "stacked",
    "user_errors",
    "write_output",
]


def console(stderr: bool = False) -> Any:
    """A rich console (imported lazily)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 160
    return Console(stderr=stderr, highlight=False, width=width)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with thousands separators and ``noun`` in the number it needs.

    >>> count(1, "record"), count(1200, "record"), count(2, "key combination")
    ('1 record', '1,200 records', '2 key combinations')
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def user_errors(func: F) -> F:
    """Turn microsdc's errors and bad files into a one-line message and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from microsdc.exceptions import SDCError

        try:
            return func(*args, **kwargs)
        except click.UsageError:
            raise
        except SDCError as exc:
            message = _typed_names(exc) if str(exc) else type(exc).__name__
            fail(message.splitlines()[0])
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            fail(f"{exc.strerror}: {exc.filename}")
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            fail(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")

    return wrapper  # type: ignore[return-value]


#: Library parameter -> the option (by its click name) through which the user gave it.
_PARAMETER_ALIASES = {
    "quasi_identifiers": "qi",
    "quasi_identifier_cols": "qi",
    "weights": "weight",
    "width": "bins",
    "column": "bins",
    "rule": "subject_rule",
    "log_file_name": "log_file",
    "data": "file",
    "df": "file",
    "checked_columns": "checked",
    "allowed": "neighbours",
    "n_groups": "groups",
    "households": "hid",
}


def option_names() -> dict[str, str]:
    """Library parameter -> the option (or argument) of the running command that gives
    it, as typed (``-k/--k-anonymity``); empty outside a command."""
    ctx = click.get_current_context(silent=True)
    names: dict[str, str] = {}
    for param in ctx.command.params if ctx is not None else ():
        if param.name is None:
            continue
        if isinstance(param, click.Option):
            names[param.name] = "/".join(sorted(param.opts, key=len))  # -k/--k-anonymity
        else:
            names[param.name] = param.human_readable_name
    for lib, dest in _PARAMETER_ALIASES.items():
        if dest in names and lib not in names:
            names[lib] = names[dest]
    return names


def refuse_alone(*pairs: tuple[str, str, bool, str]) -> None:
    """Refuse an option typed without the option it works with, where alone it would
    change nothing. Each pair: the option's parameter name, the other option as the
    user would type it (``"--method random"``), whether that one is given, and why the
    first needs it. A :class:`click.UsageError` names both and the fix."""
    ctx = click.get_current_context()
    for name, partner, present, why in pairs:
        source = ctx.get_parameter_source(name)
        if present or source in (None, click.core.ParameterSource.DEFAULT):
            continue
        flag = option_names()[name].split("/")[-1]
        raise click.UsageError(
            f"{flag} applies only with {partner} ({why}); without it {flag} would change "
            f"nothing: add {partner} or leave {flag} out."
        )


def _typed_names(exc: BaseException) -> str:
    """``exc``'s message naming the option the user typed instead of the library
    parameter behind it, and not the library function the command called."""
    from microsdc._core.messages import render

    if click.get_current_context(silent=True) is None:
        return render(exc, {})
    names = option_names()
    # on the command line a parameter that is None is an option not given
    return render(exc, names, "Option").replace(" Got None instead.", " It was not given.")


def cut_outside_quotes(
    text: str, on: str, option: str | None = None, maxsplit: int = -1
) -> list[str]:
    """``text`` cut at each ``on`` outside double quotes (at most ``maxsplit`` times),
    the parts as given, quotes kept (``""`` in a quoted part is a quote).

    Raises
    ------
    click.BadParameter
        If a double quote is left open (naming ``option``).
    """
    parts: list[str] = []
    start = 0
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == on and not quoted:
            parts.append(text[start:i])
            start = i + 1
            if len(parts) == maxsplit:
                break
    else:
        if quoted:
            raise click.BadParameter(
                f"{text!r} opens a double quote it does not close; a name that holds a comma "
                'goes in double quotes: A,"B, C".',
                param_hint=f"'{option}'" if option else None,
            )
    return [*parts, text[start:]]


def _unquote(part: str) -> str:
    """A name as given between the commas, its quotes removed: a quoted stretch keeps
    its commas and spaces (``""`` in it is a quote); unquoted text at either end is
    stripped."""
    segs: list[str] = []  # unquoted, quoted, unquoted, ... stretches
    cur: list[str] = []
    quoted = False
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == '"' and quoted and part[i + 1 : i + 2] == '"':
            cur.append('"')
            i += 2
            continue
        if ch == '"':
            segs.append("".join(cur))
            cur = []
            quoted = not quoted
        else:
            cur.append(ch)
        i += 1
    segs.append("".join(cur))
    if len(segs) == 1:
        return segs[0].strip()
    return segs[0].lstrip() + "".join(segs[1:-1]) + segs[-1].rstrip()


def parse_list(value: str | None, option: str | None = None) -> list[str]:
    """Split ``"a,b, c"`` into ``["a", "b", "c"]``; ``None`` or ``""`` gives ``[]``.

    A name that holds a comma, or spaces at either end, is given in double quotes,
    as in a CSV header: ``'age,"income, net"," sex"'`` gives ``["age", "income, net",
    " sex"]``. ``option`` names the option in the error for an unclosed quote.
    """
    if not value:
        return []
    return [name for part in cut_outside_quotes(value, ",", option) if (name := _unquote(part))]


def split_name_value(spec: str, option: str) -> tuple[str, str, bool]:
    """``NAME=VALUE`` split at its first ``=`` outside double quotes: (name with its
    quotes removed, the rest as given, whether there was an ``=``)."""
    parts = cut_outside_quotes(spec, "=", option, maxsplit=1)
    return _unquote(parts[0]), parts[1] if len(parts) == 2 else "", len(parts) == 2


def _number(text: str) -> float:
    """A number as typed: ``0`` stays the int 0 (a message then shows 0, not 0.0)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


#: ``--bin COL=WIDTH`` (repeatable), one declaration for every command that reads key
#: variables: bands of a numeric column before anything is counted or released.
bin_option = click.option(
    "--bin",
    "bins",
    multiple=True,
    metavar="COL=WIDTH",
    help="Bin a numeric column first into bands of WIDTH (e.g. age=5 gives 20-24, 25-29); "
    "the bands are what is counted and written. Repeatable.",
)


def parse_bins(specs: tuple[str, ...]) -> list[tuple[str, float]]:
    """``--bin`` values ``COL=WIDTH`` as (column, width) pairs.

    Raises
    ------
    InvalidParameterError
        For a value that is not ``COL=WIDTH`` with a number as WIDTH, quoting it.
    """
    out = []
    for spec in specs:
        name, width, has = split_name_value(spec, "--bin")
        try:
            if not has or not name:
                raise ValueError
            out.append((name, _number(width)))
        except ValueError:
            from microsdc.exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"--bin expects COLUMN=WIDTH (e.g. age=5); got {spec!r}."
            ) from None
    return out


def apply_bins(df: Any, specs: tuple[str, ...], missing_values: list[Any] | None) -> Any:
    """``df`` with each ``--bin`` column in bands of its width (:func:`bin_in_memory`).
    A new frame; ``df`` is never changed."""
    return bin_in_memory(df, parse_bins(specs), missing_values)


def bin_in_memory(df: Any, bands: list[tuple[str, float]], missing_values: list[Any] | None) -> Any:
    """``df`` with each column of ``bands`` (:func:`parse_bins`) in bands of its width
    (:func:`microsdc.recoding.bin_numeric`; declared missing codes stay as they are).
    A new frame; ``df`` is never changed."""
    if bands:
        from microsdc.recoding import bin_numeric

        for name, width in bands:
            df = bin_numeric(df, name, width=width, missing_values=missing_values or ())
    return df


def read_input(
    path: str,
    columns: list[str] | None = None,
    *,
    out: str | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    keys: list[str] | None = None,
    missing_values: list[Any] | None = None,
    options: dict[str, list[str]] | None = None,
    weights: str | None = None,
    **kwargs: Any,
) -> Any:
    """Read a CSV, Parquet, SPSS or Stata file (see :func:`microsdc.io.read_table`).

    The weight column ``weights``, when a CSV file held it as texts that all read as
    numbers ("12.50"), comes as floats (:func:`microsdc.io.text_types.weights_as_numbers`).

    ``out``, the file the command will write, is checked first (known format,
    existing folder, not the input itself), so that no work is wasted. A file
    without records is an error; a key variable (``keys``) missing in every
    record gives a warning naming it. ``options`` (option -> the columns it names)
    says which option named a column of ``columns`` that the file lacks.
    """
    from microsdc.exceptions import ColumnNotFoundError, DataValidationError
    from microsdc.io import check_column_names, check_output_path, number_records, read_table
    from microsdc.io.text_types import weights_as_numbers

    if out is not None:
        check_output_path(out, path)
    sep_char = parse_sep(sep)
    try:
        df = read_table(path, columns=columns, sep=sep_char, encoding=encoding, **kwargs)
        df = weights_as_numbers(df, weights)
    except ColumnNotFoundError as exc:
        raise _named_by_options(exc, options or {}) from None
    if columns is None and options:  # every column read: the options' columns checked here
        _check_named(df, path, options)
    if len(df) == 0:
        from microsdc.io import read_columns

        # the file's columns, not only those read
        n_cols = (
            len(df.columns)
            if columns is None
            else len(read_columns(path, sep=sep_char, encoding=encoding))
        )
        raise DataValidationError(
            f"{path} has a header ({n_cols} column(s)) but no records; nothing to do."
        )
    df = number_records(df, path, sep_char, encoding)  # rows named as in the file
    if keys:
        from microsdc.data.quality import (
            warn_all_missing,
            warn_suspect_key_texts,
            warn_user_missing_codes,
        )

        present = [c for c in keys if c in df.columns]
        warn_all_missing(df, present, missing_values)
        warn_suspect_key_texts(df, present, missing_values, "--missing-values '{0}'")
        warn_user_missing_codes(df, present, missing_values, "--missing-values '{0}'")
    if out is not None:
        check_column_names(df.columns, out)
    return df


def _check_named(df: Any, path: str, options: dict[str, list[str]]) -> None:
    """Refuse the columns ``options`` name that ``df`` (the whole file) lacks, worded as
    when only the named columns are read."""
    from pathlib import Path

    from microsdc.exceptions import ColumnNotFoundError
    from microsdc.io.read import check_file_columns

    named = list(dict.fromkeys(c for cols in options.values() for c in cols))
    try:
        check_file_columns(Path(path).name, named, list(df.columns))
    except ColumnNotFoundError as exc:
        raise _named_by_options(exc, options) from None


def _named_by_options(exc: Any, options: dict[str, list[str]]) -> Any:
    """``exc`` (columns not in the file) worded by the options that named them:
    "Option --qi names 1 column(s) not in in.csv: 'nosuch'. ..."."""
    owners = [opt for opt, cols in options.items() if any(c in exc.missing for c in cols)]
    if not owners:
        return exc
    head = (
        f"Option {owners[0]} names "
        if len(owners) == 1
        else f"Options {' and '.join(owners)} name "
    )
    return type(exc)(head + str(exc), missing=exc.missing)


def parse_sep(text: str | None) -> str | None:
    """``--sep``: one character; ``tab`` or ``\\t`` mean a tab."""
    if text is None:
        return None
    if text.lower() in ("tab", "\\t"):
        return "\t"
    from microsdc._validation import separator_problem

    problem = separator_problem(text)
    if problem is not None:
        raise click.BadParameter(
            f"give one character (e.g. ';', '|', tab), not {text!r} ({problem}).",
            param_hint="'--sep'",
        )
    return text


sep_option = click.option(
    "--sep",
    "sep",
    default=None,
    metavar="CHAR",
    help="Field separator of a CSV file: ',', ';', '|' or tab. Default: detected from the "
    "header line.",
)
encoding_option = click.option(
    "--encoding",
    "encoding",
    default=None,
    help="Text encoding of a CSV file, e.g. latin-1 or cp1252 (default: UTF-8). A CSV "
    "output is written in it too.",
)


#: ``--random-order`` of every command that writes released data (the job's
#: ``output.random_order``).
random_order_option = click.option(
    "--random-order",
    "random_order",
    is_flag=True,
    default=False,
    help="Write the records in an order drawn from their released values, not the input's: "
    "an input sorted by a key variable or by household would otherwise let the records "
    "around a changed cell tell its value. Needs no seed.",
)


#: FILE, the data file a command reads in memory (not a folder).
file_argument = click.argument("file", type=click.Path(dir_okay=False))
#: ``--out`` of the commands that write the data file they release.
out_option = click.option(
    "--out", "out_file", required=True, help="Output file (.csv, .parquet, ...)."
)
#: ``--seed`` of the commands whose draws protect the data.
seed_option = click.option("--seed", type=int, default=None, help="Seed (keep it secret).")


def stacked(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator that applies ``decorators`` as if they stood one above the other,
    the first on top: options several commands declare together, in that order."""

    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


def write_output(
    df: Any,
    path: str,
    encoding: str | None = None,
    source: str | None = None,
    sep: str | None = None,
    random_order: bool = False,
) -> None:
    """Write a frame in the format given by the file extension; a CSV file as the input
    ``source`` came: in ``encoding`` (a latin-1 file is released as latin-1), with the
    UTF-8 byte-order mark when it has one, with its separator (``sep``, the ``--sep``
    given, or the one detected) and its line breaks. With ``random_order``, the rows
    in the order of a hash of their values (:func:`microsdc.data.rowkeys.random_order`,
    as a job's ``output.random_order``)."""
    from microsdc.io import release_style, write_table

    if random_order:
        from microsdc.data.rowkeys import random_order as order_of

        df = df.iloc[order_of(df)].reset_index(drop=True)

    if source is None:
        write_table(df, path, encoding=encoding)
    else:
        write_table(df, path, **release_style(source, parse_sep(sep), encoding))


qi_option = click.option(
    "--qi",
    "qi",
    required=True,
    help="Quasi-identifiers, comma separated: A,B,C (a name with a comma in double quotes: "
    'A,"B, C").',
)


def library_option(func: Callable[..., Any], param: str, *flags: str, **attrs: Any) -> Any:
    """The option ``flags`` that gives ``func``'s parameter ``param``, with that
    parameter's default (shown in its help): the library's signature is the one
    place the default is declared."""
    default = inspect.signature(func).parameters[param].default
    return click.option(*flags, param, default=default, show_default=True, **attrs)


def parse_qi(value: str) -> list[str]:
    """The key variables ``--qi`` names.

    Raises
    ------
    click.UsageError
        If it names no column (``--qi ""``, ``--qi ,``).
    """
    qis = parse_list(value, "--qi")
    if not qis:
        raise click.UsageError("--qi names no column: give the key variables, comma separated")
    return qis


def k_option(help: str) -> Any:
    """``-k``, the k of k-anonymity (at least 1, default
    :data:`~microsdc.risk.kanonymity.DEFAULT_K`), worded by ``help``."""
    from microsdc.risk.kanonymity import DEFAULT_K

    return click.option(
        "-k", "k", type=click.IntRange(min=1), default=DEFAULT_K, show_default=True, help=help
    )


def _missing_option(policies: str, default: str = "wildcard") -> Any:
    """``--missing``, the policies offered listed in its help."""
    return click.option(
        "--missing",
        "missing",
        default=default,
        show_default=True,
        help=f"Missing-value policy: {policies}, or alpha in [0, 1].",
    )


missing_option = _missing_option("wildcard, probabilistic, category, conservative (a measure only)")
#: ``--missing`` of the commands that release data (no "conservative": it guarantees nothing);
#: the default is the guarantee that resists an intruder who knows every key value.
release_missing_option = _missing_option(
    "category (the guarantee against an intruder who knows every key value of a person: "
    "every released record shares its key values, blanks included, with k - 1 others, so "
    "none is picked with probability above 1/k); wildcard, probabilistic (measures, as "
    "sdcMicro counts: they leave records such an intruder picks, and a warning counts them)",
    default="category",
)

missing_values_option = click.option(
    "--missing-values",
    "missing_values",
    default=None,
    help='Extra codes that mean "missing", comma separated (e.g. "-999,NA,").',
)


def policy_value(text: str) -> Any:
    """The ``--missing`` option as ``parse_policy`` takes it: a number for alpha (``2``
    stays the int 2, so that a message shows it as typed), else the name."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_missing_values(text: str | None) -> list[Any] | None:
    """Split codes such as ``"-999,NA,"`` into ``["-999", -999, -999.0, "NA", ""]``."""
    if text is None:
        return None
    out: list[Any] = []
    for part in text.split(","):
        token = part.strip()
        out.append(token)
        try:
            out.append(int(token))
        except ValueError:
            pass
        try:
            out.append(float(token))
        except ValueError:
            pass
    return list(dict.fromkeys(out))


def records_callback(bar: Any, label: str = "suppressing") -> Any:
    """A ``progress(processed, total)`` callback that shows records at risk handled and left.

    The task appears on the first call, with an estimate of the time left.
    """
    task: list[Any] = []

    def update(done: int, total: int) -> None:
        info = f"{done:,} of {total:,} records at risk handled, at most {total - done:,} left"
        if not task:
            task.append(bar.add_task(label, total=max(total, 1), info=info))
        elif done == 0:  # a new pass: start the estimate again
            bar.reset(task[0], total=max(total, 1), info=info)
        bar.update(task[0], completed=done, total=max(total, 1), info=info)

    return update


class _Progress:
    """A rich progress bar on stderr, shown only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        from rich.progress import Progress

        self._progress = Progress(
            *progress_columns(label),
            console=console(stderr=True),
            transient=True,
            disable=not sys.stderr.isatty(),
        )

    def __enter__(self) -> Any:
        return self._progress.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._progress.__exit__(*exc)


def progress(label: str) -> _Progress:
    """Context manager giving a rich ``Progress`` (disabled when stderr is not a terminal)."""
    return _Progress(label)


def on_columns(
    func: Callable[..., Any], data: Any, columns: str, **options: Any
) -> tuple[list[str], Any]:
    """The library call of a command that releases the columns ``--vars`` names:
    ``func(data, cols, **options)``, ``cols`` those columns, and ``strata`` (where
    ``options`` has it) the columns ``--strata`` names or None, with microsdc's
    warnings printed (:class:`report_warnings`). Returns ``cols`` and the result."""
    cols = parse_list(columns, "--vars")
    if "strata" in options:
        options["strata"] = parse_list(options["strata"], "--strata") or None
    with report_warnings():
        return cols, func(data, cols, **options)


class report_warnings:
    """Print microsdc's warnings raised inside the block as one yellow line each on stderr
    (a message raised twice is printed once)."""

    def __enter__(self) -> None:
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._log = self._cm.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)
        from rich.markup import escape

        from microsdc.exceptions import SDCWarning

        err = console(stderr=True)
        shown = set()
        for w in self._log:
            if issubclass(w.category, SDCWarning) and str(w.message) not in shown:
                shown.add(str(w.message))  # each once (reading and counting both check)
                # in the options' names (--method greedy, not method='greedy'); the
                # message is text, not markup ("[input]" is a job-file table)
                text = _typed_names(w.message) if isinstance(w.message, Warning) else str(w.message)
                err.print(f"[yellow]Warning:[/yellow] {escape(text)}")


#: Modules holding numba kernels, by the part of microsdc that uses them.
KERNEL_MODULES = {
    "risk": (
        "microsdc._kernels.dense",
        "microsdc._kernels.patterns",
        "microsdc._kernels.hashing",
        "microsdc._kernels.maskpairs",
    ),
    "suppression": ("microsdc._kernels.greedy_wildcard", "microsdc._kernels.greedy_bitset"),
    "swapping": ("microsdc.swapping._kernels",),
    "pram": ("microsdc._kernels.pram",),
    "microaggregation": ("microsdc._kernels.mdav",),
}


def cold_kernels(parts: tuple[str, ...]) -> list[str]:
    """Modules of ``parts`` whose numba kernels have no usable on-disk cache yet.

    Reads numba's cache index of each kernel (no compilation). A module counts
    as compiled once any of its kernels is cached: some kernels are only
    inlined into others, or used only for large inputs. Kernels whose cache
    cannot be inspected count as compiled.
    """
    import importlib

    cold = []
    for part in parts:
        for name in KERNEL_MODULES.get(part, ()):
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            seen = warm = False
            for obj in list(vars(module).values()):
                cache = getattr(obj, "_cache", None)
                index = getattr(getattr(cache, "_cache_file", None), "_load_index", None)
                if index is None:
                    continue
                seen = True
                try:
                    warm = bool(index())
                except Exception:  # a cache we cannot read: say nothing
                    warm = True
                if warm:
                    break
            if seen and not warm:
                cold.append(name)
    return cold


def announce_compile(*parts: str) -> bool:
    """Say in one line on stderr that the numerical kernels compile now, if their cache is cold.

    The first run after installing microsdc compiles its numba kernels (about
    10 seconds for the demo) and caches them; without this line a piped or
    ``--no-progress`` run would look hung. Returns whether the line was printed.

    A part counts as compiled once one of its modules is: the modules of a part
    are alternative routes (the counting routes, the greedy on bit sets or on
    hash tables), and a run compiles only those its data take, so the others
    may stay cold for good.
    """
    for part in parts or tuple(KERNEL_MODULES):
        modules = KERNEL_MODULES.get(part, ())
        if modules and len(cold_kernels((part,))) == len(modules):
            break
    else:
        return False
    click.echo(
        "First run: compiling microsdc's numerical kernels (once per installation, about "
        "10 seconds; later runs start at once).",
        err=True,
    )
    return True
