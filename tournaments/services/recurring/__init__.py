"""Recurring tournaments: schedules in the database (`schedules`), one run of a schedule
(`runner`), the long-running `arena scheduler` (`service`) and their commands (`cli`)."""
