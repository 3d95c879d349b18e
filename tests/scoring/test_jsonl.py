"""Reading JSONL: encodings, line ends, blank lines, and where errors are reported."""

from scoring.jsonl import read_jsonl
from scoring.problems import Problem


def test_bom_crlf_and_blank_lines_keep_line_numbers():
    data = b'\xef\xbb\xbf{"id": "a"}\r\n\r\n   \n{"id": "b"}\r\n\n'
    lines, problems = read_jsonl(data, "f.jsonl")
    assert problems == []
    assert [(line.number, line.record) for line in lines] == [(1, {"id": "a"}), (4, {"id": "b"})]


def test_broken_json_names_file_and_line_and_reading_goes_on():
    lines, problems = read_jsonl(b'{"id": "a"}\n\n{"id": \n{"id": "c"}\n', "sub.jsonl")
    assert [line.number for line in lines] == [1, 4]
    assert len(problems) == 1
    assert str(problems[0]).startswith("sub.jsonl:3: json: invalid JSON")


def test_a_line_that_is_not_an_object_is_refused():
    _, problems = read_jsonl(b'["id", "a"]\n"text"\n', "f.jsonl")
    assert [str(problem) for problem in problems] == [
        "f.jsonl:1: line: expected a JSON object, found array",
        "f.jsonl:2: line: expected a JSON object, found string",
    ]


def test_invalid_utf8_is_refused_with_its_line():
    _, problems = read_jsonl('{"id": "a"}\n{"id": "ż"}\n'.encode("utf-8") + b'{"id": "\xff"}\n', "f.jsonl")
    assert len(problems) == 1 and problems[0].line == 3 and problems[0].code == "encoding"


def test_problem_text_is_file_line_field_message():
    assert str(Problem("commas", "bad", file="x.jsonl", line=7)) == "x.jsonl:7: commas: bad"
    assert str(Problem("id", "no answer", file="x.jsonl")) == "x.jsonl: id: no answer"
    assert str(Problem("answer", "bad")) == "answer: bad"


def test_lines_python_cannot_read_are_refused_with_their_line_and_reading_goes_on():
    data = b'{"n": ' + b"7" * 5000 + b'}\n' + b"[" * 100_000 + b'\n{"id": "c"}\n'
    lines, problems = read_jsonl(data, "f.jsonl")
    assert [line.number for line in lines] == [3]
    assert [str(problem) for problem in problems] == [
        "f.jsonl:1: json: unreadable JSON: a number with too many digits",
        "f.jsonl:2: json: unreadable JSON: nested too deeply",
    ]
