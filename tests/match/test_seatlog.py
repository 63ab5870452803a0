"""``SeatLog``: a bounded, decision-stamped end of one seat's stderr; and the channel's side of it."""

from __future__ import annotations

from arena.match.replay_notes import log_records
from arena.match.seatlog import SeatLog, cut_marker


def test_whole_lines_take_the_decision_at_which_they_end():
    log = SeatLog(1000)
    log.add(0, 0, b"hello\nthinking ")
    log.add(3, 0, b"hard\nmove 3\n")
    log.add(7, 0, b"no newline at the end")
    log.close(9)
    assert log.pieces() == [(0, "hello\n"), (3, "thinking hard\nmove 3\n"), (9, "no newline at the end")]
    assert log.text() == "hello\nthinking hard\nmove 3\nno newline at the end" and log.cut == 0
    assert log_records(2, log) == [{"type": "log", "seat": 2, "decision": d, "text": t} for d, t in log.pieces()]


def test_the_oldest_bytes_are_cut_and_counted_and_the_rest_is_the_exact_end():
    stream = b"".join(b"line %d\n" % n for n in range(200))
    log = SeatLog(100)
    for start in range(0, len(stream), 37):
        log.add(start, 0, stream[start:start + 37])
        assert log.size <= 100
    log.close(len(stream))
    assert log.cut == len(stream) - 100
    assert log.text() == cut_marker(len(stream) - 100) + stream[-100:].decode()
    assert log.text().startswith(f"[... {len(stream) - 100} bytes cut ...]\n")
    assert log_records(0, log)[0]["cut"] == len(stream) - 100
    assert "cut" not in log_records(0, log)[1]


def test_bytes_the_channel_lost_drop_everything_before_them():
    log = SeatLog(50)
    log.add(0, 0, b"early\n")
    log.add(5, 1000, b"late\n")  # 1000 bytes after "early" were never seen: keep no hole
    log.close(6)
    assert log.pieces() == [(5, "late\n")] and log.cut == 6 + 1000


def test_an_unfinished_line_longer_than_the_limit_keeps_its_end():
    log = SeatLog(10)
    log.add(1, 0, b"a" * 25)
    assert log.size == 10 and log.cut == 15
    log.close(2)
    assert log.pieces() == [(2, "a" * 10)]


def test_a_character_split_between_two_reads_is_not_garbled():
    data = "a\ncafé ☕\n".encode()
    log = SeatLog(100)
    log.add(0, 0, data[:6])  # "a\ncaf" and the first byte of "é"
    log.add(1, 0, data[6:])
    log.close(2)
    assert log.pieces() == [(0, "a\n"), (1, "café ☕\n")]


def test_a_limit_of_zero_keeps_nothing():
    log = SeatLog(0)
    log.add(0, 0, b"secret\n")
    log.close(1)
    assert log.text() == "" and log_records(0, log) == [] and log.size == 0
