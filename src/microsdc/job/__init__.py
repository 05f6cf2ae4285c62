"""Anonymisation jobs: a TOML file describes the data and the steps; :func:`run_job` runs them."""

from microsdc.job.config import JobConfig, JobFileError, load_job, parse_job
from microsdc.job.pipeline import Release
from microsdc.job.runner import JobResult, run_job

__all__ = ["JobConfig", "JobFileError", "JobResult", "Release", "load_job", "parse_job", "run_job"]
