"""What each key of a job file means, for the job-file reference: dotted name ->
(default as shown, description). Pure text; :mod:`microsdc.job.schema` joins it to the
schema and the defaults."""

from __future__ import annotations

from microsdc.microaggregation.core import N_GROUPS
from microsdc.suppression.params import DIS_FRACTION, DIS_SUDA_THRESHOLD

#: The default of this key is shown from :func:`default_of` (the library's, or the job's).
DERIVED = "derived"

#: The seed of the steps that draw (PRAM, noise): default and meaning.
_DRAWS_SEED = ("none (fresh)", "Seed of the draws; kept out of the audit record and report.")

#: What each table and key of :data:`SCHEMA` means: dotted name -> (default, description).
#: The default is ``None`` for a required key and for a table. ``"*"`` stands for any
#: column name. The job-file reference of the documentation is generated from
#: SCHEMA and this table (:func:`microsdc.job.reference.job_reference_markdown`).
KEY_MEANINGS: dict[str, tuple[str | None, str]] = {
    "title": ("the input file's name", "Title of the report and the audit record."),
    "steps": (
        None,
        "Steps to run. They always run in the order risk, swapping, suppression, pram, "
        'microaggregation, noise, whatever the order in the list; "risk" only measures. The '
        "risk is measured before and after the protection steps in every job. pram, "
        "microaggregation and noise need their section.",
    ),
    "input": (None, "The file to anonymise. Required."),
    "input.path": (
        None,
        "CSV, Parquet, SPSS (`.sav`) or Stata (`.dta`) file, relative to the job file's folder; "
        "with `engine`, also a folder or glob of Parquet files, or a DuckDB database file.",
    ),
    "input.missing_values": (
        "none",
        "Codes that mean missing in every column, besides empty cells and NaN; such "
        "cells count as missing in the quasi-identifiers.",
    ),
    "input.sep": (
        "detected",
        "Field separator of a CSV file (`.csv` or `.txt`); when absent, the one among "
        "`,` `;` tab and `|` that splits the header into the most fields.",
    ),
    "input.encoding": (
        "utf-8",
        'Text encoding of a CSV file, any name Python knows (e.g. `"latin-1"`).',
    ),
    "input.engine": (
        "none (pandas, in memory)",
        'Who holds the rows: `"duckdb"` or `"polars"` read `path` lazily (a Parquet file, '
        "a folder or glob of Parquet files, a CSV file (UTF-8, or latin-1 and UTF-16 with "
        '`encoding` on `"duckdb"`; read as pandas reads it: an empty cell is missing, '
        "`NA` or `NULL` only when declared in `missing_values`), or with `table` a DuckDB "
        "database "
        "file), group "
        "the records by the key variables and write the anonymised data as Parquet "
        "(streaming); rows never enter Python. For the steps risk and suppression (greedy, "
        '`risk.missing = "wildcard"`) and `[recode]` bands of one `width` (binned in the '
        "engine); swapping, `[recode]` with `breaks`, `suppression.linked`, "
        '`suppression.method = "exact"` and `pram.household_id` '
        "need the records in "
        "memory and are refused (`output.random_order` is written by the engine). The "
        "report leaves out what needs the records: the household risk, l-diversity and the "
        "prosecutor risk.",
    ),
    "input.table": (
        "none",
        'Table of the DuckDB database file `path` to read; with `engine = "duckdb"`.',
    ),
    "variables": (None, "The roles of the columns. Required."),
    "variables.quasi_identifiers": (
        None,
        "Key variables: the columns an intruder may know. Categorical; bin numeric ones "
        "in `[recode]`.",
    ),
    "variables.weights": (
        "none (the sample is the population)",
        "Sampling weight column; gives the population frequency Fk and the individual risk.",
    ),
    "variables.household_id": (
        "none",
        "Household id column. Required by swapping; adds the household risk.",
    ),
    "variables.hierarchy": (
        "none",
        "Geographic levels, coarsest first (e.g. region, district). Required by swapping.",
    ),
    "variables.sensitive": (
        "[]",
        "Sensitive variables whose l-diversity is measured. None may be a quasi-identifier.",
    ),
    "variables.drop": (
        "[]",
        "Columns not released (e.g. a code that gives a key variable back, such as "
        "`education-num` for `education`): removed right after reading, never used. A "
        "household id (`variables.household_id`, `pram.household_id`) may be listed: the "
        "steps use it and it is removed before the release is written.",
    ),
    "variables.compare_by": (
        "none",
        "A column (a region): the report compares continuous variables within its groups.",
    ),
    "recode": (
        None,
        "Global recoding before anything is measured, one table per column: binning of "
        "numbers (`width` or `breaks`), top and bottom coding (`top`, `bottom`), merging "
        "of categories (`groups`, `min_count`).",
    ),
    "recode.*": (
        None,
        "The column to recode. Numbers: `bottom` and `top` coding first, then at most one "
        "of `width` or `breaks`. Categories: `groups` first, then `min_count`. A table "
        "either bins numbers or merges categories, not both.",
    ),
    "recode.*.width": ("", "Equal-width bins: `width = 5` gives 20-24, 25-29, ..."),
    "recode.*.start": ("0", "Left edge of one bin of width `width` (the bins are anchored there)."),
    "recode.*.breaks": (
        "",
        "Bin edges, ascending; values outside them are an error.",
    ),
    "recode.*.labels": (
        "made from the edges (18-64, 65+)",
        "One label per bin; only with `breaks`.",
    ),
    "recode.*.groups": (
        "none",
        "Categories merged into a new label, sdcMicro's `groupAndRename` "
        "(`microsdc.group_categories`): `groups = { piped = [1, 2], other = [5, 6, 7] }`. "
        'Each category is written as the column holds it (`1` for a numeric code, `"1"` '
        "for a text); a category the column lacks, or a label that is another category "
        "of the column, is an error. On a numeric column a label that is a number "
        '(`"1" = [1, 2]`) stays a number; another label makes the column text.',
    ),
    "recode.*.min_count": (
        "none",
        "Categories with fewer records are merged into `other_label` "
        "(`microsdc.merge_rare_categories`), after `groups`.",
    ),
    "recode.*.other_label": (
        '`"other"`, or the next code above the largest for numeric codes',
        "The category the rare ones of `min_count` are merged into.",
    ),
    "recode.*.top": (
        "none",
        "Top coding, sdcMicro's `topBotCoding` (`microsdc.top_code`): values above it are "
        "replaced by `top_value`.",
    ),
    "recode.*.top_value": ("`top`", "The value that replaces those above `top`."),
    "recode.*.bottom": (
        "none",
        "Bottom coding (`microsdc.bottom_code`): values below it are replaced by `bottom_value`.",
    ),
    "recode.*.bottom_value": ("`bottom`", "The value that replaces those below `bottom`."),
    "risk": ("", "How the risk is measured."),
    "risk.k": (
        DERIVED,
        "k of k-anonymity: a record is at risk when fewer than k records match it.",
    ),
    "risk.missing": (
        DERIVED,
        "How a missing quasi-identifier value counts, and so the guarantee suppression "
        'gives. The default, `"category"`, resists an intruder who knows every key value '
        "of a person: a blank is one more category, every released record is in a class "
        "of k identical records, so none is picked with probability above 1/k. The "
        'measures: a blank matches any value (`"wildcard"`, sdcMicro\'s count), or a '
        'value with that value\'s share (`"probabilistic"`); suppressing to them leaves '
        "records such an intruder picks, and the job warns with their number. "
        '`"conservative"` (the smallest count over the completions) is a measure only and '
        "refused with a suppression step; a number alpha in [0, 1] weighs matches with "
        "missing values as sdcMicro's freqCalc.",
    ),
    "risk.l_diversity": (DERIVED, "Kind of l-diversity measured on the sensitive variables."),
    "risk.l": (DERIVED, "A record fails l-diversity when its class has fewer than l values."),
    "risk.c": ("none", 'Constant of recursive (c, l)-diversity; required by "recursive".'),
    "risk.risk_threshold": (
        DERIVED,
        "The report counts the records whose individual risk is above this value.",
    ),
    "risk.suda": (
        DERIVED,
        "Also find the special uniques (SUDA2): records unique on a few of their key "
        "values. The report shows how many records have one, the DIS-SUDA scores and which "
        "variables and values contribute most. Missing values count as `risk.missing` says "
        '(`"probabilistic"` and alpha as `"wildcard"`; not with `"conservative"`).',
    ),
    "risk.max_msu": (
        "all the quasi-identifiers",
        "With `risk.suda`: the largest number of key values in a special unique searched "
        "(4-6 keeps 10-15 quasi-identifiers fast).",
    ),
    "suppression": ("", 'Local suppression; needs "suppression" in `steps`.'),
    "suppression.importance": (
        "QIs with more categories are blanked first",
        "Which cells to keep. A list ranks every quasi-identifier; a table such as "
        "`{ age = 3, sex = 1 }` gives the cost of each blanked cell; numbers such as "
        "`[3, 1, 2]` are sdcMicro's importance vector (one per quasi-identifier, in their "
        "order, 1 = blanked last).",
    ),
    "suppression.method": (
        DERIVED,
        '"exact" solves an integer program (small files only) for the fewest cells.',
    ),
    "suppression.strata": ("none", "Columns whose groups are anonymised each on its own."),
    "suppression.accept_rare_values": (
        DERIVED,
        "Suppress although a key variable has so many rare values that suppression cannot "
        "protect it (100 or more distinct values, more than 5 % of the records in values "
        "fewer than k records hold); without it such a variable stops the job, to be "
        "binned (`[recode]`), recoded or dropped.",
    ),
    f"suppression.{DIS_SUDA_THRESHOLD.name}": (
        "none (only k)",
        DIS_SUDA_THRESHOLD.meaning
        + ' The special uniques are counted as `risk.missing` says (`"category"`: a blank '
        "is a value; the others: a blank matches any value). Not with `input.engine`.",
    ),
    f"suppression.{DIS_FRACTION.name}": (
        f"{DIS_FRACTION.default:g}",
        DIS_FRACTION.meaning,
    ),
    "suppression.linked": (
        "{}",
        "Linked (ghost) variables, `{key variable = [columns]}`: each column is blanked "
        "wherever its key variable was blanked, so that it cannot give the value back.",
    ),
    "suppression.combs": (
        "the full set of quasi-identifiers",
        "Sizes of quasi-identifier subsets that must each become k-anonymous.",
    ),
    "swapping": (
        "",
        'Targeted record swapping of households; needs "swapping" in `steps`, '
        "`variables.household_id` and `variables.hierarchy`.",
    ),
    "swapping.similar": (
        "no constraint",
        "Similarity profiles: a donor household must have the same values in these "
        "columns; with a list of lists, the profiles are tried in turn.",
    ),
    "swapping.swaprate": (
        DERIVED,
        "Share of households swapped at least (both households of a pair count). Every "
        "household at risk that finds a donor is swapped, so more may be swapped.",
    ),
    "swapping.k_anonymity": (
        "`risk.k`",
        "A household is at risk when a member shares its risk variables and area with "
        "fewer than this many persons; 0 or 1: nobody is at risk.",
    ),
    "swapping.risk_variables": (
        "the quasi-identifiers that are not hierarchy levels",
        "Person variables of the swapping risk.",
    ),
    "swapping.risk_threshold": (
        "1 / `k_anonymity`",
        "A household is at risk when its risk is above this value.",
    ),
    "swapping.carry_along": (
        "[]",
        "Columns exchanged together with the geography; a column that varies within "
        "households moves member by member between households of one size.",
    ),
    "swapping.checked_columns": (
        "[]",
        "Columns left in place although they look like geography (constant within areas, "
        "or determining an area). Without it such a column stops the job with its name.",
    ),
    "swapping.renumber_households": (
        DERIVED,
        "Give the released households new random ids, so that ids numbered area by area "
        "do not give the original area back.",
    ),
    "swapping.seed": (
        "none (fresh randomness)",
        "Seed of the random choices. It is never written into the outputs; keep it secret.",
    ),
    "pram": (
        None,
        "PRAM of categorical variables (usually not key variables), after suppression: each "
        "value is released as a draw from an invariant transition matrix (`microsdc.pram`).",
    ),
    "pram.variables": (None, "The categorical columns to PRAM."),
    "pram.strata": ("[]", "Strata columns: each gets its own matrices; records never move across."),
    "pram.household_id": (
        "none (each person on their own)",
        "Household id column: PRAM household-level variables (roof, walls) by household, one "
        "draw per household given to every member, matrices from household counts. Each "
        "variable and stratum must hold one value per household. It may be in "
        "`variables.drop`. Not with `input.engine` (the households are checked in memory).",
    ),
    "pram.pd": (DERIVED, "Lowest probability of keeping a category before the invariance step."),
    "pram.alpha": (DERIVED, "Weight of the invariant matrix against no change."),
    "pram.missing": (DERIVED, '`"keep"`: missing values stay missing; `"state"`: PRAMmed.'),
    "pram.together": (
        "[]",
        "Groups of variables PRAMmed through one matrix of their combinations.",
    ),
    "pram.neighbours": (
        "[]",
        "Ordered variables (numbers, dates) that move only to the next category up or down.",
    ),
    "pram.seed": _DRAWS_SEED,
    "microaggregation": (
        None,
        "Microaggregation of numeric variables (`microsdc.microaggregate`); weighted by "
        "`variables.weights` when given.",
    ),
    "microaggregation.variables": (None, "The numeric columns to microaggregate."),
    "microaggregation.k": (DERIVED, "Least number of records behind each released value."),
    "microaggregation.method": (
        DERIVED,
        '`"mdav"` (multivariate), `"individual"`, `"optimal"` or `"quantile"` (per column).',
    ),
    "microaggregation.measure": (DERIVED, "What replaces a group's values."),
    "microaggregation.strata": ("[]", "Strata columns: groups never mix strata."),
    "microaggregation.n_groups": (
        f"{N_GROUPS}",
        'Number of groups of `method = "quantile"` (only with that method).',
    ),
    "noise": (None, "Noise added to numeric variables (`microsdc.add_noise`)."),
    "noise.variables": (None, "The numeric columns to perturb."),
    "noise.method": (
        DERIVED,
        '`"additive"`, `"correlated"`, `"multiplicative"` or `"outliers"`.',
    ),
    "noise.relative_sd": (
        DERIVED,
        "The noise's standard deviation as a fraction of the column's (0.1 = a tenth of an "
        "sd; sdcMicro's `noise = 150` is 1.5).",
    ),
    "noise.keep_covariance": (DERIVED, 'With `method = "correlated"`: covariance kept exactly.'),
    "noise.lower": ("none", "Lowest released value (0 keeps amounts non-negative)."),
    "noise.upper": ("none", "Highest released value."),
    "noise.totals": (
        "none",
        'Aggregates recomputed from their noisy components: `income = ["wage", "pension"]`.',
    ),
    "noise.seed": _DRAWS_SEED,
    "output": ("", "Where the job writes."),
    "output.random_order": (
        DERIVED,
        "Release the rows in an order drawn from their released values (a hash of each "
        "row), not the input's: an input sorted by a key variable would otherwise let the "
        "records around a blanked cell tell its value. Needs no seed: the order follows "
        "from what is released and says nothing more. With `input.engine` the engine "
        "sorts the rows by that hash as it writes them; without it an engine job whose "
        "suppression blanked cells warns that the row order was not checked.",
    ),
    "output.directory": ('"."', "Folder of the outputs, relative to the job file's folder."),
    "output.data": (
        "`<input>_anonymised.<ext>`",
        "The anonymised data; the format follows the extension (a CSV file in the "
        "input's `encoding`).",
    ),
    "output.audit": (
        "`<input>_audit.json`",
        "The internal audit record (JSON): the input's SHA-256, the figures before and "
        "after. Keep it; never publish it with the data.",
    ),
    "output.report": (
        "`<input>_report.html`",
        "The internal HTML report (figures of the input, before and after). Keep it; "
        "never publish it with the data.",
    ),
    "output.release": (
        "`<input>_release.json`",
        "The external release record (JSON), published with the data: what was done and "
        "the risk of the released file, computed from the released file and parameters "
        "that do not help an intruder (no hash of the input, no seed, no figure before).",
    ),
}
