"""arena.match.helpermark: the helpers' fallback lines are found in a seat's stderr, however it arrives, and nothing else is."""

from __future__ import annotations

from arena.match.helpermark import CONTEXT_BYTES, MARKER, MarkerScan

LINE = MARKER + b"act: KeyError: 'hel'; sent legal index 0\n"


def test_a_marker_line_is_found_with_the_traceback_before_it_and_counted() -> None:
    scan = MarkerScan()
    scan.add(0, 1, 0, b"thinking\n")
    scan.add(3, 1, 0, b"Traceback (most recent call last):\n  File \"bot.py\", line 46, in act\nKeyError: 'hel'\n" + LINE)
    scan.add(5, 2, 0, b"more\n" + LINE + LINE)
    seen = scan.sighting
    assert seen is not None
    assert (seen.decision, seen.round, seen.count) == (3, 1, 3)
    assert seen.message == "act: KeyError: 'hel'; sent legal index 0"
    assert seen.context.startswith("thinking\nTraceback") and seen.context.endswith(LINE.decode())


def test_a_marker_split_between_reads_counts_once_at_the_read_that_ends_it() -> None:
    scan = MarkerScan()
    for number, piece in enumerate((LINE[:5], LINE[5:30], LINE[30:])):
        scan.add(number, 1, 0, piece)
    assert scan.sighting is not None and scan.sighting.count == 1 and scan.sighting.decision == 2
    unfinished = MarkerScan()
    unfinished.add(0, 1, 0, LINE[:-1])
    assert unfinished.sighting is None  # only whole lines count


def test_only_lines_that_start_with_the_marker_count() -> None:
    scan = MarkerScan()
    scan.add(0, 1, 0, b"x " + LINE + b"cabo_bot: ignoring a line that is not JSON\n" + b"cabo-bot: fallback:no space\n")
    assert scan.sighting is None


def test_a_line_cut_by_lost_bytes_does_not_count_and_the_context_stays_bounded() -> None:
    scan = MarkerScan()
    scan.add(0, 1, 0, b"a" * (3 * CONTEXT_BYTES) + b"\n")
    scan.add(1, 1, 5000, LINE)  # the held bytes start inside a line: maybe not at the marker's start
    assert scan.sighting is None
    scan.add(2, 1, 5000, b"tail of a line\n" + LINE)
    assert scan.sighting is not None and scan.sighting.decision == 2
    assert scan.sighting.context == LINE.decode()
    long = MarkerScan()
    long.add(0, 1, 0, b"b" * (3 * CONTEXT_BYTES) + b"\n" + LINE)
    assert long.sighting is not None and len(long.sighting.context) <= CONTEXT_BYTES
