"""The game space (Xent Games paper, section 6; gg-bench), in three sub-wings, lowest first:
`sampling` (meta-samplers and the filter pipeline), `transfer` (fine-tune and measure
transfer values) and `scope` (grow a scope with both)."""
