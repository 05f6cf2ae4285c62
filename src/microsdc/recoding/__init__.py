"""Global recoding: numeric QIs into labelled bins, top and bottom coding, merging rare categories.

:mod:`~microsdc.recoding.recode` recodes pandas data; :mod:`~microsdc.recoding.lazy`
bins a column of a lazy frame in its engine; both take their bands and labels from
:mod:`~microsdc.recoding.bands`.
"""

from microsdc.recoding.recode import (
    bin_numeric,
    bottom_code,
    group_categories,
    merge_rare_categories,
    top_code,
)

__all__ = ["bin_numeric", "bottom_code", "group_categories", "merge_rare_categories", "top_code"]
