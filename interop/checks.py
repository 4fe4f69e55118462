"""The check runner the interop scripts share: one line per check, failures
counted, never raised."""

from __future__ import annotations

import time


class Checks:
    def __init__(self, width: int = 28) -> None:
        self.failed = 0
        self.width = width

    async def run(self, name: str, coro) -> object:
        start = time.perf_counter()
        try:
            result = await coro
        except Exception as e:  # a failed check, reported and counted
            self.failed += 1
            print(f"FAIL {name:<{self.width}} {1000 * (time.perf_counter() - start):7.1f}ms: {type(e).__name__}: {e}", flush=True)
            return None
        print(f"ok   {name:<{self.width}} {1000 * (time.perf_counter() - start):7.1f}ms", flush=True)
        return result


def need(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)
