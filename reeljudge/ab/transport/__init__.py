"""The rating server's HTTP edge: connection deadlines and caps, the fair share of every route, request bodies
read with bounds, clip bytes sent by the kernel, and the event loop's lag.

It knows nothing of a study's rules (only the records' clock, for the loop-lag file).
"""
