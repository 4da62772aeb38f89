"""One versioned schema (issue 60 item 3): the Explanation's JSON carries ``schema_version``, a gallery pin and a
batch record are an Explanation plus their own fields checked by :mod:`selfexplain.core.results.schema`, and files of
each earlier shape (tests/fixtures/schema_v1, written by the code before the version existed) still read."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from selfexplain.batch.export import report_html, to_csv, to_jsonl
from selfexplain.batch.reader import Row
from selfexplain.batch.records import FIELDS, check_record, explanation_record, parse_results, record_explanation
from selfexplain.cli import main
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.schema import SCHEMA_VERSION, read_version, validate_explanation
from selfexplain.errors import GalleryImportError, SchemaError
from selfexplain.gallery.records import parse_line, stored_explanation
from selfexplain.gallery.store import GalleryStore
from selfexplain.gallery.view import pin_spans, summary_explanation

V1 = Path(__file__).parent / "fixtures" / "schema_v1"
BATCH_OWN = {"index", "line", "gold", "confidence", "correct", "truncated", "num_tokens", "alpha_entropy"}
BATCH_OWN |= {"attention_entropy", "top_attention_token", "attention_in_top_span", "error"}


def v1_explanation() -> dict:
    return json.loads((V1 / "explanation.json").read_text(encoding="utf-8"))


def v1_batch() -> bytes:
    return (V1 / "batch.jsonl").read_bytes()


def test_the_fixtures_are_of_the_earlier_shape() -> None:
    pin = json.loads((V1 / "pins.jsonl").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in v1_batch().decode().splitlines()]
    assert "schema_version" not in v1_explanation() and "schema_version" not in pin["explanation"]
    assert all("schema_version" not in record and "model" not in record for record in records)
    assert read_version(v1_explanation()) == 1 and SCHEMA_VERSION == 2


def test_an_explanation_json_carries_its_version(tiny_explainer) -> None:
    data = tiny_explainer.explain("A warm film.", attentions=False).to_dict(top_k=3)
    assert next(iter(data)) == "schema_version" and data["schema_version"] == SCHEMA_VERSION
    assert validate_explanation(json.loads(json.dumps(data)), data["text"], None) == data
    assert Explanation.from_dict(data).to_dict(top_k=3)["schema_version"] == SCHEMA_VERSION


def test_an_explanation_json_without_a_version_reads_as_before() -> None:
    data = v1_explanation()  # the CLI's explain --json of a tiny pair model
    back = Explanation.from_dict(data)
    assert (back.text, back.pair, back.label, back.model_name, back.span_unit) == (
        "A dog runs.", "An animal moves.", "entailment", "tiny-nli", "word",
    )  # fmt: skip
    assert back.probabilities.tolist() == list(data["probabilities"].values())
    assert [t.text for t in back.tokens] == ["A", "dog", "runs", ".", "An", "animal", "moves", "."]
    assert [(s.text, s.alpha, s.rank) for s in back.evidence_spans(None)] == [
        (s["text"], s["alpha"], s["rank"]) for s in data["spans"]
    ]
    checked = validate_explanation(data, data["text"], data["pair"])  # read in the current version
    assert checked == {"schema_version": SCHEMA_VERSION, **{k: v for k, v in data.items() if k != "flip"}}


def test_a_newer_or_broken_version_is_refused_in_one_line() -> None:
    data = v1_explanation()
    with pytest.raises(SchemaError, match="schema_version is 3: written by a newer selfexplain"):
        Explanation.from_dict({**data, "schema_version": 3})
    with pytest.raises(SchemaError, match="explanation.schema_version must be a whole number"):
        validate_explanation({**data, "schema_version": "2"}, data["text"], data["pair"])
    with pytest.raises(SchemaError, match=r"explanation.spans\[1\].alpha must be a number from 0 to 1"):
        validate_explanation(
            {**data, "spans": [{**data["spans"][0], "alpha": float("inf")}]}, "A dog runs.", data["pair"]
        )


def test_a_pin_exported_before_imports_shows_and_exports_in_the_current_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    old = json.loads((V1 / "pins.jsonl").read_text(encoding="utf-8"))
    assert main(["gallery", "import", str(V1 / "pins.jsonl")]) == 0
    assert main(["gallery", "export", str(tmp_path / "out.jsonl")]) == 0
    capsys.readouterr()
    again = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    assert again == {**old, "explanation": {"schema_version": SCHEMA_VERSION, **old["explanation"]}}
    pin = GalleryStore().get(old["id"])
    shown = summary_explanation(pin)
    assert (shown.label, shown.model_name, shown.span_unit, shown.num_tokens) == (
        "very negative",
        "tiny-sst",
        "word",
        0,
    )
    assert [s.text for s in pin_spans(pin, 3)] == ["film", ".", "A"]  # the best three sharing no token
    assert parse_line(json.dumps(again), "out.jsonl:1").to_dict() == pin.to_dict()


def test_a_new_pin_is_an_explanation_plus_its_own_fields(tiny_explainer) -> None:
    explanation = tiny_explainer.explain("A warm film.", attentions=False)
    stored = stored_explanation(explanation)
    assert stored["schema_version"] == SCHEMA_VERSION
    assert {k: v for k, v in stored.items() if k != "stored"} == explanation.to_dict(top_k=20)
    with pytest.raises(GalleryImportError, match="explanation.schema_version is 9"):
        parse_line(json.dumps(_pin_with(stored | {"schema_version": 9})), "pins.jsonl:1")


def _pin_with(explanation: dict) -> dict:
    return {
        "id": "p1", "created": "2024-01-01T00:00:00+00:00", "model": "tiny-sst", "text": explanation["text"],
        "pair": None, "note": "", "label": explanation["label"], "explanation": explanation,
    }  # fmt: skip


def test_a_batch_output_written_before_reads_shows_and_exports() -> None:
    records = parse_results(v1_batch(), "batch.jsonl")
    assert records == [json.loads(line) for line in v1_batch().decode().splitlines()]  # kept as written
    shown = record_explanation(records[0], "tiny-sst")
    assert (shown.label, shown.model_name, shown.span_unit) == ("very negative", "tiny-sst", "piece")
    assert records[1]["error"] == "row 2 (line 2): empty text in column 'text'"
    assert parse_results(to_jsonl(records).encode()) == records
    assert to_csv(records).splitlines()[0].startswith("schema_version,index,line,model,text,pair,gold,label")
    html = report_html(records, "tiny-sst")  # both wrong rows highlighted, the error row listed
    assert "funny" in html and "Slow" in html and "empty text in column" in html


BROKEN = {  # a change to the first record of batch.jsonl, and the message's core
    "alpha NaN": (("spans", 0, "alpha"), float("nan"), r"spans\[1\].alpha must be a number from 0 to 1"),
    "end_token past the tokens": (("spans", 0, "end_token"), 6, r"spans\[1\].end_token must be"),
    "probabilities a string": (("probabilities",), "high", "probabilities must map 1 to"),
    "label not predicted": (("label",), "positive", "the label is not the most probable one"),
    "confidence 2": (("confidence",), 2, "confidence must be a number from 0 to 1"),
    "num_tokens huge": (("num_tokens",), 10**12, "num_tokens must be a whole number"),
    "newer version": (("schema_version",), 3, "schema_version is 3: written by a newer selfexplain"),
    "correct a string": (("correct",), "yes", "correct must be true or false"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_batch_record_is_refused_naming_line_and_field(case: str) -> None:
    path, value, message = BROKEN[case]
    record = json.loads(v1_batch().decode().splitlines()[0])
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match=rf"r.jsonl: line 2: {message}"):
        parse_results(v1_batch().splitlines()[1] + b"\n" + json.dumps(record).encode() + b"\n", "r.jsonl")


def test_a_new_batch_record_is_a_token_less_explanation_plus_the_rows_fields(tiny_explainer) -> None:
    explanation = tiny_explainer.explain("A warm, funny film.", attentions=False)
    record = explanation_record(Row(0, 1, "A warm, funny film.", gold="positive"), explanation, "positive", False, 2)
    assert tuple(record) == FIELDS and record["schema_version"] == SCHEMA_VERSION
    shared = {k: v for k, v in record.items() if k not in BATCH_OWN}
    expected = explanation.to_dict(top_k=2)
    del expected["tokens"]
    assert set(shared) == set(expected)
    assert {k: shared[k] for k in ("model", "text", "pair", "label", "num_valid_spans", "num_evidence_spans")} == {
        k: expected[k] for k in ("model", "text", "pair", "label", "num_valid_spans", "num_evidence_spans")
    }
    check_record(copy.deepcopy(record))
    assert (
        validate_explanation(record, record["text"], None, where="", tokens=False, num_tokens=6)["spans"]
        == (record["spans"])
    )
