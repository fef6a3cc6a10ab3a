"""Seals and erasure records: the evidence refs beside a branch, read and checked.

Room: the store. ``verify`` calls ``check`` after proving the branch commit by
commit; ``seals`` writes seals, ``erasure`` writes records; ``remote`` carries
both refs with push, pull and clone (``refs``, ``objects``).

**A seal** (``refs/halo/seals/<branch>/e<N>-<time>``) records a head a
reviewer saw. It is an annotated tag object (``git verify-tag`` checks a signed
one) whose object is a small blob holding the claim::

    halo-seal 1
    agent demo
    branch main
    head <commit id>
    events 7

The seal names the head by its id in that text, not by a Git link, so it never
keeps a commit alive: an erasure can remove the old commits and the seal stays
as evidence of what was seen. ``check`` proves every seal's head is the
branch's commit at that position, or that a signed erasure record maps it there.

**An erasure record** (``refs/halo/erasures/<branch>/<time>-<head>``) is a
commit without parent, authored (and signed) by the person who erased, whose
tree holds ``record.json``: the old and new heads, the redacted event ids, the
tombstone, the map from every rewritten commit to its replacement, the
approvals in the range with their verification before the rewrite, and the ids
of the objects the rewrite made unreachable. It, too, names commits only as text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ..errors import IntegrityError
from . import signing

SEALS = b"refs/halo/seals/"
ERASURES = b"refs/halo/erasures/"
SEAL_FORMAT = b"halo-seal 1\n"
RECORD_FILE = b"record.json"
RECORD_FORMAT = "halo-erasure 1"
_SIG_MARKERS = (b"-----BEGIN SSH SIGNATURE-----", b"-----BEGIN PGP SIGNATURE-----")
_TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


def seal_prefix(branch: str) -> bytes:
    return SEALS + branch.encode() + b"/"


def erasure_prefix(branch: str) -> bytes:
    return ERASURES + branch.encode() + b"/"


def branch_refs(refs: dict, branch: str) -> dict[bytes, bytes]:
    """The seal and erasure refs of ``branch`` in a ref mapping (its own, not
    those of a branch whose name continues with ``/``)."""
    out = {}
    for prefix in (seal_prefix(branch), erasure_prefix(branch)):
        for ref, sha in refs.items():
            if ref.startswith(prefix) and b"/" not in ref[len(prefix):] and sha and sha != b"0" * 40:
                out[ref] = sha
    return out


def local_refs(git, branch: str) -> dict[bytes, bytes]:
    """``branch_refs`` of a dulwich ``Repo``."""
    found = {}
    for prefix in (seal_prefix(branch), erasure_prefix(branch)):
        for name in git.refs.keys(base=prefix):
            if b"/" in name:
                continue
            try:
                found[prefix + name] = git.refs[prefix + name]
            except KeyError:
                continue
    return found


def _raw(store, sha: bytes, kind: bytes, what: str) -> bytes:
    try:
        type_num, raw = store.get_raw(sha)
    except KeyError:
        raise _Unreadable(f"{what} {sha.decode()[:12]} is missing from the repository") from None
    if _TYPES.get(type_num) != kind:
        raise _Unreadable(f"{what} {sha.decode()[:12]} is a {_TYPES.get(type_num, b'?').decode()}, not a {kind.decode()}")
    if hashlib.sha1(b"%s %d\0" % (kind, len(raw)) + raw).hexdigest().encode() != sha:
        raise _Unreadable(f"{what} {sha.decode()[:12]} is corrupt (its contents do not hash to its id)")
    return raw


class _Unreadable(Exception):
    pass


def _headers(raw: bytes) -> tuple[dict[bytes, bytes], bytes]:
    head, _, body = raw.partition(b"\n\n")
    out: dict[bytes, bytes] = {}
    for line in head.split(b"\n"):
        if line.startswith(b" "):
            continue  # a continuation line (gpgsig)
        key, _, value = line.partition(b" ")
        out.setdefault(key, value)
    return out, body


def _ident_email(ident: bytes) -> str:
    start, end = ident.find(b"<"), ident.find(b">")
    return ident[start + 1:end].decode("utf-8", "replace") if 0 <= start < end else ""


def _ident_time(ident: bytes) -> int:
    try:
        return int(ident.rsplit(b" ", 2)[-2])
    except (ValueError, IndexError):
        return 0


# -- seals ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seal:
    ref: str
    tag: str  # id of the tag object
    agent: str
    branch: str
    head: str
    events: int
    signer: str  # the tagger, NAME <EMAIL>
    time: int
    signature: signing.SignatureCheck

    @property
    def name(self) -> str:
        return self.ref.rsplit("/", 1)[-1]

    def describe(self) -> str:
        return f"{self.ref} (e1..e{self.events}, head {self.head[:12]}, sealed by {self.signer})"


def seal_claim(agent: str, branch: str, head: str, events: int) -> bytes:
    return SEAL_FORMAT + f"agent {agent}\nbranch {branch}\nhead {head}\nevents {events}\n".encode()


def split_signature(body: bytes) -> tuple[bytes, bytes | None]:
    """A tag's message split before its signature (git appends it to the message)."""
    best = -1
    for marker in _SIG_MARKERS:
        i = body.find(marker)
        if i >= 0 and (i == 0 or body[i - 1:i] == b"\n") and (best < 0 or i < best):
            best = i
    return (body, None) if best < 0 else (body[:best], body[best:])


def read_seal(store, ref: bytes, sha: bytes, allowed: str | None, keyring: str | None) -> Seal:
    """Parse and (with trust files) check the seal tag ``sha``; ``_Unreadable`` when it is no seal."""
    raw = _raw(store, sha, b"tag", "seal tag")
    headers, body = _headers(raw)
    if headers.get(b"type") != b"blob":
        raise _Unreadable(f"its tag {sha.decode()[:12]} does not name a seal blob")
    claim = _raw(store, headers.get(b"object", b""), b"blob", "seal claim")
    if not claim.startswith(SEAL_FORMAT):
        raise _Unreadable(f"its blob {headers[b'object'].decode()[:12]} is not a HALO seal")
    fields = dict(line.split(" ", 1) for line in claim[len(SEAL_FORMAT):].decode("utf-8", "replace").splitlines() if " " in line)
    try:
        events = int(fields["events"])
        head = fields["head"]
        agent, branch = fields["agent"], fields["branch"]
    except (KeyError, ValueError):
        raise _Unreadable("its claim lacks agent, branch, head or events") from None
    head_len = len(raw) - len(body)
    message, sig = split_signature(body)
    tagger = headers.get(b"tagger", b"")
    check = signing.check_signed(raw[:head_len] + message, sig, _ident_time(tagger), _ident_email(tagger), allowed, keyring)
    return Seal(ref.decode(), sha.decode(), agent, branch, head, events, tagger.rsplit(b" ", 2)[0].decode("utf-8", "replace"),
                _ident_time(tagger), check)


# -- erasure records ----------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    ref: str
    commit: str
    data: dict = field(hash=False)
    author: str = ""
    signature: signing.SignatureCheck = signing.SignatureCheck(signing.UNSIGNED)

    @property
    def old_head(self) -> str:
        return self.data["old_head"]

    @property
    def new_head(self) -> str:
        return self.data["new_head"]

    @property
    def first(self) -> int:
        return int(self.data["first"])

    @property
    def map(self) -> dict[str, str]:
        return self.data["map"]

    @property
    def events(self) -> list[str]:
        return list(self.data["events"])

    @property
    def name(self) -> str:
        return self.ref.rsplit("/", 1)[-1]

    @property
    def signed(self) -> bool:
        return self.signature.status in (signing.GOOD, signing.UNCHECKED)


def read_record(store, ref: bytes, sha: bytes, allowed: str | None, keyring: str | None) -> Record:
    from dulwich.objects import Commit

    raw = _raw(store, sha, b"commit", "erasure record")
    headers, _body = _headers(raw)
    tree = _raw(store, headers.get(b"tree", b""), b"tree", "erasure record tree")
    from dulwich.objects import parse_tree

    blob = next((s for name, _m, s in parse_tree(tree, 20) if name == RECORD_FILE), None)
    if blob is None:
        raise _Unreadable("its tree holds no record.json")
    try:
        data = json.loads(_raw(store, blob, b"blob", "record").decode("utf-8"))
        if data.get("format") != RECORD_FORMAT or not isinstance(data.get("map"), dict):
            raise ValueError
        int(data["first"]), data["old_head"], data["new_head"], list(data["events"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise _Unreadable("its record.json is not a HALO erasure record") from None
    commit = Commit.from_raw_string(1, raw, sha=sha)
    check = signing.check_commit_signature(commit, allowed, keyring)
    return Record(ref.decode(), sha.decode(), data, headers.get(b"author", b"").rsplit(b" ", 2)[0].decode("utf-8", "replace"), check)


def records_of(git, branch: str, allowed: str | None = None, keyring: str | None = None) -> list[Record]:
    """The branch's erasure records, oldest first (unreadable ones are skipped)."""
    out = []
    for ref, sha in sorted(local_refs(git, branch).items()):
        if ref.startswith(ERASURES):
            try:
                out.append(read_record(git.object_store, ref, sha, allowed, keyring))
            except _Unreadable:
                continue
    return out


def forward(commit: str, records: list[Record]) -> str:
    """Where ``commit`` is after every erasure in ``records`` (oldest first)."""
    for r in records:
        commit = r.map.get(commit, commit)
    return commit


# -- the check verify makes ---------------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """What ``check`` found: seals on the branch and erasure records covering it."""

    seals: tuple[Seal, ...] = ()
    records: tuple[Record, ...] = ()
    notes: tuple[str, ...] = ()  # lines for the reader (approvals proven before an erasure, unchecked signatures)


def check(git, agent: str, branch: str, chain_ids: list[str], summaries: list[str], allowed: str | None, keyring: str | None,
          merged: dict[str, int] | None = None) -> Evidence:
    """Prove every seal of ``branch`` is on its history (or mapped there by a
    signed erasure record) and every record is applied and signed acceptably.
    ``merged``: commits of the lines merged into the branch -> their event number
    there (a seal of a copy that was merged, or that fast-forwarded through a merge,
    holds when its head is that line's commit at its position).

    Raises:
        IntegrityError: naming the seal or record that does not hold.
    """
    trusted = allowed is not None or keyring is not None
    where = f"branch '{branch}' of agent '{agent}'"
    refs = local_refs(git, branch)
    records: list[Record] = []
    notes: list[str] = []
    position = {c: i for i, c in enumerate(chain_ids)}
    head = chain_ids[-1] if chain_ids else None
    for ref, sha in sorted(refs.items()):
        if not ref.startswith(ERASURES):
            continue
        try:
            r = read_record(git.object_store, ref, sha, allowed, keyring)
        except _Unreadable as e:
            raise IntegrityError(f"erasure record {ref.decode()} of {where} cannot be read: {e}; it was changed outside HALO. "
                                 f"Restore it from a clone, or remove it (git update-ref -d {ref.decode()})") from None
        status = r.signature.status
        if status in (signing.BAD, signing.UNKNOWN_SIGNER, signing.UNSUPPORTED):
            store = keyring if r.signature.format == "gpg" else allowed
            raise IntegrityError(
                f"erasure record {r.ref} of {where} (by {r.author}) carries a signature that does not prove it: {status}, "
                f"{r.signature.detail}. An erasure counts only when signed by an allowed signer: add the eraser's key to "
                f"{store or 'the allowed signers'} if they may erase, otherwise treat the history as rewritten and restore it from a copy",
                commit=r.commit)
        if r.old_head == head and r.new_head not in position:
            raise IntegrityError(
                f"an erasure of {', '.join(r.events)} on {where} is pending (record {r.ref}, the branch still holds the old "
                f"history): complete it with halo-git redact --agent {agent} --branch {branch} --resume")
        if r.signed:
            records.append(r)
        else:
            notes.append(f"erasure record {r.name} is unsigned: it covers nothing (sign erasures with --sign)")
    records.sort(key=lambda r: r.name)
    for r in records:
        at = forward(r.new_head, [x for x in records if x.name > r.name])
        if at not in position:
            raise IntegrityError(
                f"erasure record {r.ref} of {where} names the new head {r.new_head[:12]}, which is not on the branch: the "
                "history was changed after the erasure. Restore the branch from a copy", commit=r.commit)
        for e in r.events:
            n = int(e[1:]) if e[1:].isdigit() else 0
            if not 1 <= n <= len(summaries) or summaries[n - 1] != r.data.get("tombstone"):
                raise IntegrityError(
                    f"erasure record {r.ref} of {where} says {e} was redacted, but the branch's {e} does not hold its "
                    "tombstone: the history was changed after the erasure. Restore the branch from a copy", commit=r.commit)
        status_note = "" if trusted else " (signature not checked: pass --allowed-signers or --gpg-keyring)"
        notes.append(f"erasure {r.name}: {', '.join(r.events)} redacted by {r.author}, signature {r.signature.status}"
                     + (f" ({r.signature.principal})" if r.signature.principal else "") + status_note)
        for a in r.data.get("approvals", []):
            new = forward(a.get("new", ""), [x for x in records if x.name > r.name])
            if new not in position:
                continue
            check = _old_approval(a, allowed, keyring) if trusted else None
            if check is not None and check.status == signing.GOOD:
                notes.append(f"approval {a.get('event')} proven before erasure {r.name}, attested by {r.author} "
                             f"(signed by {check.principal}, old commit {str(a.get('old'))[:12]}, signature checked again)")
            elif check is None and a.get("status") == signing.GOOD:
                notes.append(f"approval {a.get('event')} proven before erasure {r.name}, attested by {r.author} "
                             f"(signed by {a.get('principal')} as checked then, old commit {str(a.get('old'))[:12]})")
            elif trusted:
                notes.append(f"approval {a.get('event')} was re-created unsigned by erasure {r.name}; its old signature "
                             f"is {check.status if check is not None else a.get('status')}: claimed, not proven")
    seals = []
    for ref, sha in sorted(refs.items()):
        if not ref.startswith(SEALS):
            continue
        try:
            s = read_seal(git.object_store, ref, sha, allowed, keyring)
        except _Unreadable as e:
            raise IntegrityError(f"seal {ref.decode()} of {where} cannot be read: {e}; it was changed outside HALO. "
                                 f"Restore it from a clone, or remove it (git update-ref -d {ref.decode()})") from None
        if s.agent != agent or s.branch != branch:
            raise IntegrityError(f"seal {s.ref} of {where} names agent '{s.agent}' branch '{s.branch}'; it was moved here outside HALO")
        now = forward(s.head, records)
        if not (1 <= s.events <= len(chain_ids) and chain_ids[s.events - 1] == now) and not (merged and merged.get(now) == s.events):
            if now != s.head and now in position:
                why = f"an erasure maps its head to e{position[now] + 1}, not e{s.events}"
            elif s.events > len(chain_ids):
                why = f"the branch holds only {len(chain_ids)} events now (truncated or moved back)"
            else:
                why = (f"the branch's e{s.events} is commit {chain_ids[s.events - 1][:12]}, not the sealed {s.head[:12]}, "
                       "and no signed erasure record maps one to the other (a rewrite after the seal)")
            raise IntegrityError(
                f"seal {s.ref} of {where} (head {s.head[:12]}, e1..e{s.events}, sealed by {s.signer}) is not on the branch: "
                f"{why}. The history a reviewer saw was changed; restore the branch from a clone or backup holding {s.head[:12]}",
                commit=s.head)
        if trusted and s.signature.status not in (signing.GOOD, signing.UNSIGNED):
            store = keyring if s.signature.format == "gpg" else allowed
            raise IntegrityError(
                f"seal {s.ref} of {where} carries a signature that does not prove it: {s.signature.status}, {s.signature.detail}. "
                f"If the sealer is trusted, add their key to {store or 'the allowed signers'}")
        if now != s.head:
            notes.append(f"seal {s.name} names the head from before an erasure, {s.head[:12]}; the erasure records map it to "
                         f"e{s.events} of the branch, {now[:12]}")
        seals.append(s)
    return Evidence(tuple(seals), tuple(records), tuple(notes))


def _old_approval(entry: dict, allowed: str | None, keyring: str | None) -> signing.SignatureCheck | None:
    """The signature of an approval commit a record kept, checked now; None when the record kept none."""
    from dulwich.objects import Commit

    raw = entry.get("commit")
    if not isinstance(raw, str):
        return None
    data = raw.encode("utf-8")
    sha = hashlib.sha1(b"commit %d\0" % len(data) + data).hexdigest()
    if sha != entry.get("old"):
        return signing.SignatureCheck(signing.BAD, detail="the kept commit is not the one the record names")
    try:
        commit = Commit.from_raw_string(1, data, sha=sha.encode())
    except Exception:
        return signing.SignatureCheck(signing.BAD, detail="the kept commit cannot be parsed")
    return signing.check_commit_signature(commit, allowed, keyring)


def objects_of(store, sha: bytes) -> list:
    """The objects of one seal tag or record commit (what a push must send)."""
    out = []
    try:
        obj = store[sha]
        out.append(obj)
        if obj.type_name == b"tag":
            out.append(store[obj.object[1]])
        elif obj.type_name == b"commit":
            tree = store[obj.tree]
            out.append(tree)
            out.extend(store[e.sha] for e in tree.iteritems())
    except (KeyError, AttributeError):
        return []
    return out


def dump_record(data: dict) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=0, ensure_ascii=False) + "\n").encode("utf-8")



def take(git, remote_refs: dict, branch: str, on_branch) -> int:
    """Create the seal and erasure refs of ``branch`` that ``remote_refs`` (a
    transfer's) names and this repository lacks, for evidence whose objects
    arrived and that holds here: a record whose new head is on the branch, a
    seal whose head (through the records) is. ``on_branch(commit, events)``
    decides; a ref already here is never moved. Returns how many were taken."""
    from .repo import ZERO_SHA

    incoming = branch_refs(remote_refs, branch)
    mine = local_refs(git, branch)
    taken = 0
    records = records_of(git, branch)
    for ref, sha in sorted(incoming.items()):
        if ref in mine or sha not in git.object_store or not ref.startswith(ERASURES):
            continue
        try:
            r = read_record(git.object_store, ref, sha, None, None)
        except _Unreadable:
            continue
        if on_branch(forward(r.new_head, [x for x in records if x.name > r.name]), None):
            if git.refs.set_if_equals(ref, ZERO_SHA, sha):
                records.append(r)
                records.sort(key=lambda x: x.name)
                taken += 1
    for ref, sha in sorted(incoming.items()):
        if ref in mine or sha not in git.object_store or not ref.startswith(SEALS):
            continue
        try:
            s = read_seal(git.object_store, ref, sha, None, None)
        except _Unreadable:
            continue
        if s.branch == branch and on_branch(forward(s.head, records), s.events) and git.refs.set_if_equals(ref, ZERO_SHA, sha):
            taken += 1
    return taken
