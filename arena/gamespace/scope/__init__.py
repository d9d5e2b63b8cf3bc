"""Scope growth (Algorithm 1): grow a set of games by sampling candidates and asking the
transfer oracle, then report the archive and its transfer covers (Def. 45)."""
