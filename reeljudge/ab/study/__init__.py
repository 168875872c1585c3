"""A study as it runs: its data folder (workspace), who rates what next (assignment and quality control), gold
pairs, and the status the dashboard and ``reeljudge ab status`` show.

Above ``store``; below the rooms that report on a study or serve it.
"""
