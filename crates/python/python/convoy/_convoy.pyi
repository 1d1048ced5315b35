"""Type stubs of the native half (crates/python/src/lib.rs). The API is ``convoy``'s; these take and return
text (TOML, JSON, CSV) that ``convoy/__init__.py`` converts."""

from typing import Any, Callable, List, Mapping, Optional

class NativeError(Exception):
    """args: (kind, message, details as JSON)."""

def dict_to_toml(obj: Mapping[str, Any]) -> str: ...
def sim(
    text: str,
    file: str,
    name: str,
    sets: List[str],
    out: Optional[str] = None,
    pcap: Optional[str] = None,
) -> str: ...
def sweep(
    text: str,
    file: str,
    out: str,
    jobs: int,
    progress: Optional[Callable[[int, int, bool], None]] = None,
) -> str: ...
def sweep_slurm(grid: str, dir: str, task_minutes: float, parallel: int, convoy: str) -> str: ...
def reproduce(
    ids: List[str],
    seeds: int,
    out: str,
    jobs: int,
    scenarios: str,
    progress: Optional[Callable[[int, int, str, int], None]] = None,
) -> str: ...
def experiment_ids() -> List[str]: ...
def name_build(file: str) -> bool: ...
