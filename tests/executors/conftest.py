"""One local Ray cluster for the Ray executor tests of a module: 2 CPUs and 2 logical GPUs
declared on this CPU host (Ray's GPUs are bookkeeping), shut down after the module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[object]:
    import ray

    from tests.executors import ray_fixtures  # sets the marks folder before workers start

    del ray_fixtures
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
