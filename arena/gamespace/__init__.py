"""The game space: meta-samplers that propose games related to a given one, and the filter
pipeline that decides which proposals are kept (Xent Games paper, section 6; gg-bench)."""
