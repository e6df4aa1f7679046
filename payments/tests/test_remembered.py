"""Answers are remembered inside a `remembering()` block only, and never past it."""

from payments.remembered import remembered, remembering


def test_an_answer_is_computed_once_per_block_and_again_outside_it():
    calls: list[str] = []

    def ask() -> int:
        calls.append("asked")
        return len(calls)

    with remembering():
        assert remembered("q", ask) == remembered("q", ask) == 1
        with remembering():  # a nested block shares the outer one's answers
            assert remembered("q", ask) == 1
    with remembering():
        assert remembered("q", ask) == 2
    assert remembered("q", ask) == 3
    assert remembered("q", ask) == 4
