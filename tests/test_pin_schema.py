"""The one pin schema (issue 24.1; attack rows 1, 3, 4 and 9): hostile pins are refused at import with one
line naming the line, nothing is half-imported, and a hostile row already in a database is never shown."""

from __future__ import annotations

import copy
import json
import re
import time
from datetime import datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from selfexplain.cli import main
from selfexplain.core.results.checks import MAX_LABELS
from selfexplain.errors import GalleryImportError
from selfexplain.gallery.records import DamagedPinError, pin_explanation, validate_record
from selfexplain.gallery.schema import PINS
from selfexplain.gallery.store import GalleryStore

TEXT = "A warm, funny film; the ending drags."


@pytest.fixture(scope="module")
def good(tiny_explainer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A valid export record of TEXT."""
    store = GalleryStore(f"sqlite:///{tmp_path_factory.mktemp('schema') / 'g.sqlite3'}")
    record = store.add(tiny_explainer.explain(TEXT, attentions=False), "tiny-sst", note="n").to_dict()
    store.close()
    return json.loads(json.dumps(record))


def variant(good: dict, change) -> dict:  # noqa: ANN001
    record = copy.deepcopy(good)
    change(record)
    return record


def _set(path: str, value: object):  # noqa: ANN202
    """A change setting ``record[...path...] = value`` (path like "explanation.spans.0.end_token")."""

    def change(record: dict) -> None:
        *parents, last = path.split(".")
        target = record
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is KeyError:
            del target[last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value

    return change


HOSTILE = {  # attack rows 1, 3 and 9, and the schema's other bounds: (change, the message's core)
    "end_token 4e9": (_set("explanation.spans.0.end_token", 4_000_000_000), "spans[1].end_token must be"),
    "end_token 1e19": (_set("explanation.spans.0.end_token", 10**19), "spans[1].end_token must be"),
    "start_token -1": (_set("explanation.spans.0.start_token", -1), "spans[1].start_token must be"),
    "no num_valid_spans": (_set("explanation.num_valid_spans", KeyError), "num_valid_spans must be a whole number"),
    "num_valid_spans lots": (_set("explanation.num_valid_spans", "lots"), "num_valid_spans must be a whole number"),
    "num_valid_spans huge": (_set("explanation.num_valid_spans", 10**12), "num_valid_spans must be a whole number"),
    "stored [1]": (_set("explanation.stored", [1]), "explanation.stored must be an object"),
    "stored.top_k 1e9": (_set("explanation.stored.top_k", 10**9), "stored.top_k must be"),
    "200,000 labels": (
        lambda r: r["explanation"].update(
            probabilities={r["label"]: 0.5} | {f"l{n}": 0.5 / 200_000 for n in range(200_000)}
        ),
        f"must map 1 to {MAX_LABELS:,} labels",
    ),
    "probability 2": (_set("explanation.probabilities", {"a": 2.0}), "must be a number from 0 to 1"),
    "alpha true": (_set("explanation.spans.0.alpha", True), "alpha must be a number from 0 to 1"),
    "token end past the text": (_set("explanation.tokens.0.end", 10_000), "tokens[1].end must be"),
    "token as a list": (_set("explanation.tokens.0", [1, 2]), "tokens[1] must be an object"),
    "segment 1 without a pair": (_set("explanation.spans.0.segment", 1), "spans[1].segment must be"),
    "span unit": (_set("explanation.span_unit", "sentence"), "span_unit must be"),
    "windows past the tokens": (_set("explanation.windows", [0, 10**6]), "windows[] must be"),
    "lone surrogate note": (_set("note", "\ud800"), "note holds a lone surrogate"),
    "a 5,000-character label": (_set("label", "x" * 5_000), "label must have 1 to 200 characters"),
    "created far in the future": (_set("created", "9999-12-31T23:59:59-14:00"), "created is outside the years"),
    "created far in the past": (_set("created", "0001-01-01T00:00:00+14:00"), "created is outside the years"),
    "created a number": (_set("created", 20240101), "created must be an ISO 8601 time"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_records_are_refused_with_the_field(good: dict, case: str) -> None:
    change, message = HOSTILE[case]
    began = time.perf_counter()
    with pytest.raises(GalleryImportError, match=re.escape(message)):
        validate_record(variant(good, change))
    assert time.perf_counter() - began < 2


def test_a_valid_record_keeps_only_schema_fields(good: dict) -> None:
    extra = variant(good, _set("explanation.secret", {"deep": [1, 2, 3]}))
    extra["also"] = "dropped"
    pin = validate_record(extra)
    assert "secret" not in pin.explanation and pin.to_dict() == validate_record(good).to_dict()
    assert set(pin.explanation) <= {
        "schema_version", "model", "text", "pair", "label", "probabilities", "tokens", "spans", "num_valid_spans",
        "num_evidence_spans", "span_unit", "windows", "stored",
    }  # fmt: skip
    with pytest.raises(GalleryImportError, match="may not hold attention maps"):
        pin_explanation({**good["explanation"], "attentions": [[0]]}, TEXT, None, good["label"])


def _lines(good: dict, hostile: str) -> str:
    return json.dumps(good) + "\n" + hostile + "\n"


UNREADABLE = {  # attack row 4: each a one-line error naming line 2, exit 2
    "a 5,000-digit integer": ('{"id": ' + "9" * 5_000 + "}", "line 2: a number too long to read"),
    "100,000 nested brackets": ("[" * 100_000 + "]" * 100_000, "line 2: JSON nested too deeply to read"),
    "NaN alpha": (None, "line 2: explanation.spans[1].alpha must be a number from 0 to 1"),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_unreadable_lines_are_one_line_exit_2_and_nothing_is_imported(
    good: dict, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    hostile, message = UNREADABLE[case]
    if hostile is None:
        hostile = json.dumps({**variant(good, _set("explanation.spans.0.alpha", float("nan"))), "id": "other"})
    path = tmp_path / "pins.jsonl"
    path.write_text(_lines(good, hostile), encoding="utf-8")
    assert main(["gallery", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}, {message}" in err and "Traceback" not in err
    assert not (tmp_path / "home").exists()  # the file is refused before the database is even opened
    assert GalleryStore().count() == 0


def _insert_raw(store: GalleryStore, record: dict, explanation_text: str | None = None) -> None:
    """Put a row in the database as an older selfexplain (or a hand edit) could have, past every check."""
    row = {key: record[key] for key in ("id", "model", "text", "pair", "note", "label")}
    row["created_at"] = datetime.fromisoformat(record["created"])
    row["explanation"] = explanation_text if explanation_text is not None else json.dumps(record["explanation"])
    with store.engine.begin() as connection:
        connection.execute(sa.insert(PINS).values(**row))


@pytest.mark.parametrize("case", ["end_token 4e9", "end_token 1e19", "no num_valid_spans", "stored [1]"])
def test_a_hostile_row_in_the_database_is_named_never_shown(good: dict, case: str, tmp_path: Path) -> None:
    store = GalleryStore(f"sqlite:///{tmp_path / 'g.sqlite3'}")
    hostile = variant(good, HOSTILE[case][0])
    _insert_raw(store, good)
    _insert_raw(store, {**hostile, "id": "hostile1"})
    with pytest.raises(DamagedPinError, match="pin hostile1 in the gallery is damaged") as caught:
        store.get("hostile1")
    assert caught.value.pin_id == "hostile1"
    assert store.get(good["id"]).id == good["id"] and store.count() == 2
    store.remove("hostile1")
    _insert_raw(store, {**good, "id": "notjson1"}, explanation_text="{oops")
    with pytest.raises(DamagedPinError, match="notjson1"):
        store.get("notjson1")
    store.close()
