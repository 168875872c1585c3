"""Statistics shared by the reports: bootstrap intervals, agreement, rankings, correlations.

Each module is one idea and leans on a maintained library (scipy, krippendorff, statsmodels);
numpy and scipy load only when a statistic is computed.
"""
