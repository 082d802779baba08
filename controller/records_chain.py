"""The records' hash chain: how a record is hashed, and the walk that names every place the chain is
not as written (``RecordStore.verify`` reads the rows and hands them here).

A record's hash covers its own content, the hash of the record before it (``GENESIS`` for the first)
and the SHA-256 of every image file it names; so editing, deleting or reordering a record, or
swapping a photo, breaks the chain at a place :func:`walk` names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GENESIS = "0" * 64

#: The record that acknowledges damage; the only one a damaged store still writes.
ACKNOWLEDGED = "damage_acknowledged"


@dataclass(frozen=True)
class Problem:
    """One place where the chain is not as written. ``key`` names it stably (kind and record number),
    so that an acknowledgement covers exactly the problems the host saw."""

    seq: int
    key: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "key": self.key, "problem": self.text}


@dataclass(frozen=True)
class VerifyResult:
    """``ok`` when every problem found (if any) was acknowledged; ``bad_seq`` and ``problem`` name the
    first one that was not."""

    ok: bool
    records: int
    bad_seq: int | None = None
    problem: str | None = None
    problems: tuple[Problem, ...] = field(default=())
    acknowledged: tuple[Problem, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "records": self.records, "bad_seq": self.bad_seq, "problem": self.problem,
                "problems": [p.as_dict() for p in self.problems],
                "acknowledged": [p.as_dict() for p in self.acknowledged]}


def canonical(obj: Any) -> str:
    """The one JSON spelling that is hashed (sorted keys, no spaces): the same content, the same hash."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def record_hash(seq: int, ts: float, kind: str, drop_id: int | None, payload_json: str, images_json: str,
                prev_hash: str) -> str:
    """The SHA-256 of a record. A ``ts`` that is not a finite number (a hand-edited row) raises
    ValueError: no record this program wrote has one."""
    if isinstance(ts, bool) or not isinstance(ts, int | float) or not math.isfinite(ts):
        raise ValueError(f"the time {str(ts)[:40]!r} is not a number")
    body = canonical([seq, repr(float(ts)), kind, drop_id, payload_json, images_json, prev_hash])
    return hashlib.sha256(body.encode("ascii")).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def walk(rows: Sequence[tuple[Any, ...]], head_seq: int, head_hash: str, data_dir: Path, *,
         check_images: bool = True) -> VerifyResult:
    """Walk the chain from the first record and name every record that is not as written.

    ``rows``: ``(seq, ts, kind, drop_id, payload, images, prev_hash, hash)`` in ``seq`` order;
    ``head_seq``/``head_hash``: the chain's recorded head. A gap in ``seq`` is a deleted record; a
    ``prev_hash`` that is not the previous record's hash is a reordered or replaced one; a hash that
    does not match the content (or a time that is not a number) is an edited one; a photo whose
    SHA-256 changed is a swapped image (``check_images`` false skips hashing the photos); and a chain
    shorter than its recorded head means the last records were deleted. The walk goes on past each
    problem, so the host sees all of them; problems named in an acknowledgement record are returned
    as acknowledged."""
    problems: list[Problem] = []
    acknowledged_keys: set[str] = set()
    prev = GENESIS
    expected_seq = 1
    for seq, ts, kind, drop_id, payload, images_json, prev_hash, digest in rows:
        label = f"record #{seq} ({kind}{'' if drop_id is None else f' of drop {drop_id}'})"
        if seq != expected_seq:
            gone = f"#{expected_seq}" if seq == expected_seq + 1 else f"#{expected_seq}-#{seq - 1}"
            problems.append(Problem(expected_seq, f"missing:{expected_seq}",
                                    f"record {gone} is missing (deleted): the next one is #{seq}"))
            prev = prev_hash  # the walk goes on from the record that follows the gap
        if prev_hash != prev:
            problems.append(Problem(seq, f"order:{seq}", f"{label} does not follow record #{seq - 1}: "
                                    "records were reordered, removed or replaced"))
        try:
            edited = record_hash(seq, ts, kind, drop_id, payload, images_json, prev_hash) != digest
            why = "its content no longer matches its hash"
        except ValueError as exc:
            edited, why = True, f"{exc}, so its time was edited"
        if edited:
            problems.append(Problem(seq, f"edited:{seq}", f"{label} was edited: {why}"))
        elif kind == ACKNOWLEDGED:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                acknowledged_keys |= {str(p["key"]) for p in json.loads(payload).get("problems", [])}
        problems.extend(_image_problems(data_dir, seq, label, images_json, check_hashes=check_images))
        prev = digest
        expected_seq = seq + 1
    if head_seq != expected_seq - 1 or head_hash != prev:
        problems.append(Problem(expected_seq, f"missing:{expected_seq}",
                                f"the chain ends at record #{expected_seq - 1} but #{head_seq} was written: "
                                "the last record(s) were deleted"))
    open_problems = [p for p in problems if p.key not in acknowledged_keys]
    done = tuple(p for p in problems if p.key in acknowledged_keys)
    first = open_problems[0] if open_problems else None
    result = VerifyResult(first is None, len(rows), first.seq if first else None, first.text if first else None,
                          tuple(open_problems), done)
    return result


def _image_problems(data_dir: Path, seq: int, label: str, images_json: str, *, check_hashes: bool) -> list[Problem]:
    try:
        refs = json.loads(images_json)
        items = [(str(role), str(ref["path"]), str(ref["sha256"])) for role, ref in refs.items()]
    except (ValueError, TypeError, KeyError, AttributeError):
        return []  # the record's own hash check names the edit
    out = []
    for role, rel, digest in items:
        file = data_dir / rel
        if not file.is_file():
            out.append(Problem(seq, f"image:{seq}:{role}", f"{label}: its {role} image {rel} is missing"))
        elif check_hashes and file_sha256(file) != digest:
            out.append(Problem(seq, f"image:{seq}:{role}", f"{label}: its {role} image {rel} was changed"))
    return out
