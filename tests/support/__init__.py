"""Test-only helpers shared by several test folders (and the benchmarks): real servers on loopback."""
