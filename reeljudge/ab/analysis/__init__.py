"""What the records say: the tables the statistics read, the one contradiction rule, model raters beside the
people, and the report (as data and as one HTML page).

Reads ``store`` and ``study``; nothing of the server.
"""
