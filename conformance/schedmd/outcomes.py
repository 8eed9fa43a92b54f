"""pytest plugin (loaded by run.sh with `-p outcomes`): appends one line per test to the file named by
SCHEDMD_OUTCOMES: `collected ID` when pytest collects it, then `OUTCOME ID` when it ends, OUTCOME being
passed, failed, skipped or error (setup or teardown failed). A file that cannot be collected gets
`error FILE`. run.sh reads these lines; a collected test with no outcome (the file's timeout killed pytest) is
reported as `timeout` there.

Written for this runner, not taken from SchedMD's testsuite (which is used in place, unmodified)."""
import os

_PATH = os.environ.get("SCHEDMD_OUTCOMES")
# Per test: the worst phase seen so far, so a teardown error after a passed call still counts.
_state = {}


def _write(line):
    if _PATH:
        with open(_PATH, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def pytest_collectreport(report):
    if report.failed:
        _write(f"error {report.nodeid}")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        _write(f"collected {item.nodeid}")


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.when == "setup":
        if report.skipped:
            _state[nodeid] = "skipped"
        elif report.failed:
            _state[nodeid] = "error"
    elif report.when == "call":
        if report.skipped:
            _state[nodeid] = "skipped"
        elif report.failed:
            _state[nodeid] = "failed"
        else:
            _state[nodeid] = "passed"
    elif report.when == "teardown":
        outcome = _state.pop(nodeid, "error")
        if report.failed:
            outcome = "error"
        _write(f"{outcome} {nodeid}")
