"""Fuzzing the HTTP API with schemathesis, from the server's own /api/openapi.json.

Every operation gets generated requests, valid and invalid (positive and negative modes); the
check is that none is answered with a 5xx and that the server logs no traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .proc import Backend, ServerProcess, tracebacks_of


@dataclass
class HttpFuzzReport:
    operations: int = 0
    requests: int = 0
    server_errors: int = 0
    tracebacks: int = 0
    by_status: dict[int, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.operations > 0 and self.server_errors == 0 and self.tracebacks == 0


def run(workdir: Path, examples: int = 200) -> HttpFuzzReport:
    """Start a server on SQLite and send every operation `examples` generated requests."""
    import schemathesis
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode

    report = HttpFuzzReport()
    backend = Backend.make("sqlite", workdir)
    server = ServerProcess(
        backend,
        backend.data_dir / "server.log",
        extra_env={"HTTP_RATE_PER_MINUTE": "1000000", "HTTP_RATE_BURST": "100000"},
    )
    server.start()
    try:
        schema = schemathesis.openapi.from_url(f"{server.base}/api/openapi.json")
        schema.config.update(base_url=server.base)
        for result in schema.get_all_operations():
            operation = result.ok()
            report.operations += 1
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                try:
                    strategy = operation.as_strategy(generation_mode=mode)
                except Exception as exc:  # an operation with nothing to break in this mode
                    report.examples.append(f"{operation.label} {mode}: {exc}")
                    continue

                @settings(
                    max_examples=examples,
                    deadline=None,
                    database=None,
                    phases=[Phase.generate],
                    verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=strategy)
                def one(case: schemathesis.Case) -> None:
                    response = case.call(base_url=server.base, timeout=10)
                    report.requests += 1
                    status = response.status_code
                    report.by_status[status] = report.by_status.get(status, 0) + 1
                    if status >= 500:
                        report.server_errors += 1
                        if len(report.examples) < 20:
                            report.examples.append(
                                f"{status} {case.method} {case.formatted_path} "
                                f"query={case.query} body={case.body!r:.200}"
                            )

                try:
                    one()
                except Unsatisfiable:
                    pass  # e.g. no invalid request can be made for an operation without input
    finally:
        server.stop()
        report.tracebacks, first = tracebacks_of(server.log_text())
        if first is not None:
            report.examples.append(first)
    return report
