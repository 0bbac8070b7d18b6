import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, database=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# the shared test helpers (bruteforce.py, recalc_helpers.py) live here; tests in subfolders import them too
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
