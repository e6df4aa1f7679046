"""Background work on django-tasks (database backend): the scheduled jobs and the clock that enqueues them.

`settings.SCHEDULED_JOBS` names every periodic job: a dotted path to a plain function, its keyword
arguments and how often it runs. Each worker process runs a clock (`scheduler`) that, at every interval,
claims the run in the database (`ScheduledRun`, unique per job and slot) and enqueues `run_scheduled_job`
for it: however many workers on however many hosts, each slot runs once. docs/webhooks.md says why this
engine, docs/deploy.md how to run it.
"""
