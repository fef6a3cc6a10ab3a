"""Commits a person authors: the user's approval of a revision, optionally signed.

Room: the store (the only package that touches Git). ``halo-git approve`` hands
``AgentRepo.append`` an ``Approver``, whose ``commit_raw`` replaces the agent's
authorship for that one commit; ``verify`` and ``Halo.approvals`` read the
signatures back with ``check_commit_signature``.

An approval commit is an ordinary event commit (one file, the next id) with
three differences, and only these:

* author and committer are the approving user (``NAME <EMAIL>``), not the agent;
* the message ends with a trailer naming the approved revision::

      e18 revise: approved e13 …

      Halo-Approval: e13

* optionally a ``gpgsig`` header, placed where ``git commit -S`` puts it (after
  ``encoding``, the last header), holding a signature over the commit without
  that header, its lines after the first indented by one space: an SSH signature
  made by ``ssh-keygen -Y sign -n git`` (git's ``gpg.format=ssh``) or an armored
  OpenPGP detached signature made by ``gpg -bsau KEY`` (git's default). Plain
  ``git verify-commit`` accepts either.

Checking SSH follows git's own steps: ``ssh-keygen -Y find-principals`` names
the allowed signer of the signature's key (none: unknown signer), then
``ssh-keygen -Y verify -I <principal>`` checks the signature over the payload,
at the commit's time (``-Overify-time``), in namespace ``git``. OpenPGP is
checked with ``gpgv --keyring FILE``: only the keys in that keyring (the allowed
signers, as ``gpg --export`` writes them) can make a signature good.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from dulwich.config import StackedConfig
from dulwich.objects import Commit
from dulwich.repo import Repo

from ..errors import HaloError, InvalidCall
from ..model import Event, commit_message, epoch_seconds

TRAILER = b"Halo-Approval: "
SSH_BEGIN = b"-----BEGIN SSH SIGNATURE-----"
PGP_BEGIN = b"-----BEGIN PGP SIGNATURE-----"
NAMESPACE = "git"
_IDENT_BAD = re.compile(r"[<>\n\r\x00]")
_TIMEOUT = 60

# Outcomes of checking one commit's signature.
GOOD = "good"  # signed by a key the allowed-signers file lists for a principal
UNSIGNED = "unsigned"
UNCHECKED = "unchecked"  # signed, but no allowed-signers file was given
UNKNOWN_SIGNER = "unknown-signer"  # valid or not, the key is in no allowed-signers line
BAD = "bad-signature"  # the key is allowed, the signature does not match the commit
UNSUPPORTED = "unsupported"  # a signature format this version does not check (GPG, X.509)


@dataclass(frozen=True)
class Identity:
    """A person as Git names them: ``NAME <EMAIL>``."""

    name: str
    email: str

    def __post_init__(self) -> None:
        for what, value in (("name", self.name), ("email", self.email)):
            if not value or not value.strip() or _IDENT_BAD.search(value) or len(value) > 200:
                raise InvalidCall(
                    f"approver {what} {value[:60]!r} is empty, too long or holds '<', '>' or a line break; "
                    f"pass --by NAME --email ADDR (as in git config user.name / user.email)"
                )

    @property
    def raw(self) -> bytes:
        return f"{self.name.strip()} <{self.email.strip()}>".encode("utf-8")

    def __str__(self) -> str:
        return self.raw.decode("utf-8")


def default_identity() -> Identity | None:
    """``user.name`` and ``user.email`` from the user's Git config (global, system), if both are set."""
    try:
        config = StackedConfig.default()
        name = config.get((b"user",), b"name").decode("utf-8")
        email = config.get((b"user",), b"email").decode("utf-8")
    except (KeyError, UnicodeDecodeError, OSError):
        return None
    return Identity(name, email)


def default_signing_key() -> str | None:
    """``user.signingkey`` from the user's Git config, if set."""
    try:
        return StackedConfig.default().get((b"user",), b"signingkey").decode("utf-8") or None
    except (KeyError, UnicodeDecodeError, OSError):
        return None


def gpg_signer(key: str) -> Callable[[bytes], bytes]:
    """A signer over ``gpg -bsau KEY`` (as git signs with OpenPGP); ``GNUPGHOME`` applies."""
    program = shutil.which("gpg")
    if program is None:
        raise HaloError("gpg is not installed; install GnuPG (apt-get install gnupg) or sign with --sign ssh")

    def sign(payload: bytes) -> bytes:
        r = subprocess.run([program, "--batch", "--status-fd=2", "-bsau", key], input=payload, capture_output=True, timeout=_TIMEOUT)
        if r.returncode != 0 or b"[GNUPG:] SIG_CREATED " not in r.stderr or not r.stdout.startswith(PGP_BEGIN):
            detail = [ln for ln in r.stderr.decode("utf-8", "replace").splitlines() if not ln.startswith("[GNUPG:]")]
            raise InvalidCall(
                f"gpg could not sign with key {key!r}: {detail[-1] if detail else 'no reason given'}; pass --key with the id, "
                "fingerprint or email of a secret key in your keyring that gpg can use without a prompt"
            )
        return r.stdout

    return sign


def _ssh_keygen() -> str:
    path = shutil.which("ssh-keygen")
    if path is None:
        raise HaloError("ssh-keygen is not installed; install OpenSSH's client tools (apt-get install openssh-client)")
    return path


def ssh_signer(key: str) -> Callable[[bytes], bytes]:
    """A signer over ``ssh-keygen -Y sign -n git -f KEY`` (a private key, or a
    public key whose private half an ssh-agent holds), as git's ``gpg.format=ssh``."""
    key_path = os.path.expanduser(key)
    if not Path(key_path).is_file():
        raise InvalidCall(f"signing key {key!r} is not a file; pass --key with the path of an SSH private key (e.g. ~/.ssh/id_ed25519)")
    program = _ssh_keygen()

    def sign(payload: bytes) -> bytes:
        with tempfile.TemporaryDirectory(prefix="halo-sign-") as tmp:
            data = Path(tmp) / "commit"
            data.write_bytes(payload)
            r = subprocess.run(
                [program, "-Y", "sign", "-n", NAMESPACE, "-f", key_path, str(data)],
                capture_output=True, stdin=subprocess.DEVNULL, timeout=_TIMEOUT,
            )
            sig = Path(str(data) + ".sig")
            if r.returncode != 0 or not sig.is_file():
                detail = r.stderr.decode("utf-8", "replace").strip().splitlines()
                raise InvalidCall(
                    f"ssh-keygen could not sign with {key!r}: {detail[-1] if detail else 'no reason given'}; "
                    "pass --key with an SSH private key you can use without a passphrase prompt (or load it into ssh-agent)"
                )
            return sig.read_bytes()

    return sign


@dataclass(frozen=True)
class Approver:
    """The commit hook of ``halo-git approve``: authorship, trailer and signature."""

    identity: Identity
    approves: str  # id of the approved revision, e.g. "e13"
    sign: Callable[[bytes], bytes] | None = None

    def message(self, event: Event) -> bytes:
        return approval_message(event, self.approves)

    def commit_raw(self, event: Event, tree: bytes, parent: bytes | None) -> bytes:
        """The approval commit holding ``event`` (hex ``tree`` and ``parent``)."""
        stamp = b"%s %d +0000" % (self.identity.raw, epoch_seconds(event.time))
        head = b"tree " + tree + b"\n"
        if parent is not None:
            head += b"parent " + parent + b"\n"
        head += b"author " + stamp + b"\ncommitter " + stamp + b"\nencoding UTF-8\n"
        body = b"\n" + self.message(event)
        if self.sign is None:
            return head + body
        sig = self.sign(head + body)
        if not sig.startswith((SSH_BEGIN, PGP_BEGIN)):
            raise HaloError("the signer returned something that is not an SSH or OpenPGP signature; nothing was written")
        lines = sig.rstrip(b"\n").split(b"\n")
        return head + b"gpgsig " + b"\n ".join(lines) + b"\n" + body


def approval_message(event: Event, approves: str) -> bytes:
    """``e18 revise: …`` then a blank line and ``Halo-Approval: e13``."""
    return commit_message(event).encode("utf-8") + b"\n" + TRAILER + approves.encode() + b"\n"


def approval_trailer(message: bytes) -> str | None:
    """The revision id an approval commit's message names, or None for any other commit."""
    lines = message.rstrip(b"\n").split(b"\n")
    if len(lines) >= 3 and lines[-2] == b"" and lines[-1].startswith(TRAILER):
        value = lines[-1][len(TRAILER):].decode("ascii", "replace")
        return value if re.fullmatch(r"e[1-9][0-9]*", value) else None
    return None


def is_approval_event(event: Event, revise_targets: dict[str, str]) -> bool:
    """The shape ``approve`` writes: a revise made_by=user, governance=approved,
    naming exactly one earlier revise of the same target (``revise_targets``:
    id -> target of the earlier revise events)."""
    f = event.fields
    return (
        event.kind == "revise"
        and f.get("made_by") == "user"
        and f.get("governance") == "approved"
        and len(event.uses) == 1
        and revise_targets.get(event.uses[0]) == f.get("target")
    )


@dataclass(frozen=True)
class SignatureCheck:
    """What checking one commit's signature found."""

    status: str  # GOOD, UNSIGNED, UNCHECKED, UNKNOWN_SIGNER, BAD, UNSUPPORTED
    format: str = ""  # "ssh", "gpg" or "" (unsigned)
    principal: str = ""  # the allowed signer, when GOOD
    key: str = ""  # the key's fingerprint, when ssh-keygen reported it
    detail: str = ""


def check_commit_signature(
    commit: Commit, allowed_signers: str | os.PathLike[str] | None, gpg_keyring: str | os.PathLike[str] | None = None
) -> SignatureCheck:
    """Check ``commit``'s signature as ``git verify-commit`` does: SSH against
    ``allowed_signers``, OpenPGP against the keys in ``gpg_keyring`` -- and,
    beyond git, that the key is the commit author's own: a good signature by
    one allowed signer does not prove an approval that names someone else."""
    check = _check_signature(commit, allowed_signers, gpg_keyring)
    if check.status != GOOD:
        return check
    email = _author_email(commit)
    if not any(fnmatch.fnmatchcase(email, pattern.strip().lower())
               for principal in check.principal.split() for pattern in principal.split(",") if not pattern.startswith("!")):
        return dataclasses.replace(check, status=BAD, detail=(
            f"it is signed with the key of {check.principal}, but the commit names {email or 'no e-mail'} as its author; "
            "the approver must sign with their own key (listed for their e-mail)"))
    return check


def _author_email(commit: Commit) -> str:
    m = re.search(rb"<([^<>]*)>", commit.author)
    return m.group(1).decode("utf-8", "replace").strip().lower() if m else ""


def _check_signature(
    commit: Commit, allowed_signers: str | os.PathLike[str] | None, gpg_keyring: str | os.PathLike[str] | None
) -> SignatureCheck:
    if commit.gpgsig is None:
        return SignatureCheck(UNSIGNED)
    try:
        payload, sig, _kind = commit.extract_signature()
    except Exception:
        return SignatureCheck(UNSUPPORTED, "", detail="its signature is in no format Git knows")
    return check_payload(payload, sig, commit.commit_time, allowed_signers, gpg_keyring)


def check_signed(
    payload: bytes, sig: bytes | None, when: int, email: str, allowed_signers: str | os.PathLike[str] | None,
    gpg_keyring: str | os.PathLike[str] | None = None,
) -> SignatureCheck:
    """``check_commit_signature`` for any signed object (a seal's tag): ``sig``
    over ``payload`` made at ``when`` (epoch seconds) by the owner of ``email``."""
    if not sig:
        return SignatureCheck(UNSIGNED)
    check = check_payload(payload, sig, when, allowed_signers, gpg_keyring)
    if check.status == GOOD and not _email_allowed(email.strip().lower(), check.principal):
        return dataclasses.replace(check, status=BAD, detail=(
            f"it is signed with the key of {check.principal}, but names {email or 'no e-mail'} as its signer; "
            "sign with your own key (listed for your e-mail)"))
    return check


def _email_allowed(email: str, principals: str) -> bool:
    return any(fnmatch.fnmatchcase(email, pattern.strip().lower())
               for principal in principals.split() for pattern in principal.split(",") if not pattern.startswith("!"))


def check_payload(
    payload: bytes, sig: bytes, when: int, allowed_signers: str | os.PathLike[str] | None, gpg_keyring: str | os.PathLike[str] | None
) -> SignatureCheck:
    """Check a detached SSH or OpenPGP signature ``sig`` over ``payload``, made at ``when`` (epoch seconds)."""
    if sig.startswith(PGP_BEGIN):
        return _check_pgp(payload, sig, gpg_keyring)
    if not sig.startswith(SSH_BEGIN):
        return SignatureCheck(UNSUPPORTED, "x509", detail="X.509 signatures are not checked by halo-git; sign approvals with SSH or GPG keys")
    if allowed_signers is None:
        return SignatureCheck(UNCHECKED, "ssh", detail="no allowed-signers file was given")
    allowed = Path(allowed_signers)
    if not allowed.is_file():
        raise InvalidCall(f"allowed-signers file {str(allowed)!r} does not exist; pass --allowed-signers with a file in ssh-keygen's ALLOWED SIGNERS format")
    program = _ssh_keygen()
    when_opt = "-Overify-time=" + datetime.fromtimestamp(when, timezone.utc).strftime("%Y%m%d%H%M%SZ")
    with tempfile.TemporaryDirectory(prefix="halo-verify-") as tmp:
        sig_file = Path(tmp) / "commit.sig"
        sig_file.write_bytes(sig)
        found = subprocess.run(
            [program, "-Y", "find-principals", "-f", str(allowed), "-s", str(sig_file), when_opt],
            capture_output=True, stdin=subprocess.DEVNULL, timeout=_TIMEOUT,
        )
        principals = found.stdout.decode("utf-8", "replace").split()
        if found.returncode != 0 or not principals:
            key = _fingerprint(program, sig_file, payload)
            return SignatureCheck(UNKNOWN_SIGNER, "ssh", key=key, detail=f"its key {key or '(unreadable)'} is not in {allowed.name}")
        principal = " ".join(principals)  # every principal the key is allowed for
        r = subprocess.run(
            [program, "-Y", "verify", "-n", NAMESPACE, "-f", str(allowed), "-I", principals[0], "-s", str(sig_file), when_opt],
            input=payload, capture_output=True, timeout=_TIMEOUT,
        )
    out = r.stdout.decode("utf-8", "replace")
    m = re.search(r"key (\S+)", out)
    if r.returncode != 0:
        return SignatureCheck(BAD, "ssh", principal, m.group(1) if m else "", "the signature does not match the commit's contents")
    return SignatureCheck(GOOD, "ssh", principal, m.group(1) if m else "")


def _check_pgp(payload: bytes, sig: bytes, keyring: str | os.PathLike[str] | None) -> SignatureCheck:
    """``gpgv --keyring FILE``: good only for a key in that keyring (no trust database involved)."""
    if keyring is None:
        return SignatureCheck(UNCHECKED, "gpg", detail="no keyring of allowed GPG keys was given")
    ring = Path(keyring).resolve()  # gpgv reads a relative name inside its home folder
    if not ring.is_file():
        raise InvalidCall(f"GPG keyring {str(keyring)!r} does not exist; pass --gpg-keyring with a file written by gpg --export KEY > FILE")
    program = shutil.which("gpgv")
    if program is None:
        raise HaloError("gpgv is not installed; install GnuPG (apt-get install gpgv) to check GPG signatures")
    with tempfile.TemporaryDirectory(prefix="halo-gpgv-") as tmp:
        sig_file = Path(tmp) / "commit.asc"
        sig_file.write_bytes(sig)
        r = subprocess.run(
            [program, "--homedir", tmp, "--status-fd=1", "--keyring", str(ring), str(sig_file), "-"],
            input=payload, capture_output=True, timeout=_TIMEOUT,
        )
    status = {}
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3 and parts[0] == "[GNUPG:]":
            status.setdefault(parts[1], parts[2:])
    if "GOODSIG" in status and "VALIDSIG" in status and r.returncode == 0:
        uid = " ".join(status["GOODSIG"][1:])
        m = re.search(r"<([^<>]+)>", uid)
        return SignatureCheck(GOOD, "gpg", m.group(1) if m else uid, status["VALIDSIG"][0])
    if "BADSIG" in status:
        return SignatureCheck(BAD, "gpg", key=status["BADSIG"][0], detail="the signature does not match the commit's contents")
    for word, why in (("EXPKEYSIG", "the signing key has expired"), ("REVKEYSIG", "the signing key was revoked"), ("EXPSIG", "the signature has expired")):
        if word in status:
            return SignatureCheck(BAD, "gpg", key=status[word][0], detail=why)
    key = (status.get("NO_PUBKEY") or status.get("ERRSIG") or [""])[0]
    return SignatureCheck(UNKNOWN_SIGNER, "gpg", key=key, detail=f"its key {key or '(unreadable)'} is not in {ring.name}")


def _fingerprint(program: str, sig_file: Path, payload: bytes) -> str:
    """The signing key's fingerprint, from ``-Y check-novalidate`` (as git prints it)."""
    r = subprocess.run(
        [program, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(sig_file)],
        input=payload, capture_output=True, timeout=_TIMEOUT,
    )
    m = re.search(r"key (\S+)", r.stdout.decode("utf-8", "replace"))
    return m.group(1) if m else ""


@dataclass(frozen=True)
class Proof:
    """An approval commit written by ``approve``, as read back from Git."""

    event: str  # id of the approval event
    commit: str
    approves: str  # id of the approved revision (the trailer)
    approver: str  # ``NAME <EMAIL>`` from the commit
    signature: SignatureCheck

    @property
    def proven(self) -> bool:
        return self.signature.status == GOOD


def read_proofs(
    repo_path: str | os.PathLike[str], agent: str, candidates: dict[str, str], allowed_signers: str | os.PathLike[str] | None,
    gpg_keyring: str | os.PathLike[str] | None = None,
) -> dict[str, Proof]:
    """The approval commits among ``candidates`` (event id -> commit id), checked.

    A candidate counts only if its commit carries the ``Halo-Approval`` trailer
    and is authored by someone other than the agent; the rest are
    ordinary agent commits (an agent's own claim of approval).
    """
    out: dict[str, Proof] = {}
    agent_ident = f"{agent} <{agent}@halo>".encode()
    if not candidates:
        return out
    with Repo(str(repo_path)) as git:
        for event_id, sha in candidates.items():
            commit = git[sha.encode()]
            approves = approval_trailer(commit.message)
            if approves is None or commit.author == agent_ident:
                continue
            out[event_id] = Proof(
                event_id, sha, approves, commit.author.decode("utf-8", "replace"),
                check_commit_signature(commit, allowed_signers, gpg_keyring),
            )
    return out


def signer_for(sign: str | None, key: str | None) -> Callable[[bytes], bytes] | None:
    """The signer ``--sign ssh|gpg --key K`` asks for (``key`` defaults to git config user.signingkey), or None."""
    if sign is None:
        return None
    if sign not in ("ssh", "gpg"):
        raise InvalidCall(f"--sign {sign!r} is not supported; use --sign ssh or --sign gpg")
    key = key or default_signing_key()
    if not key:
        what = "an SSH private key file" if sign == "ssh" else "a GPG key id, fingerprint or email"
        raise InvalidCall(f"--sign {sign} needs a key: pass --key with {what} (or set git config --global user.signingkey)")
    return ssh_signer(key) if sign == "ssh" else gpg_signer(key)


def signed_block(sig: bytes) -> bytes:
    """Refuse anything a signer returned that is not an SSH or OpenPGP signature."""
    if not sig.startswith((SSH_BEGIN, PGP_BEGIN)):
        raise HaloError("the signer returned something that is not an SSH or OpenPGP signature; nothing was written")
    return sig if sig.endswith(b"\n") else sig + b"\n"


def gpgsig_header(sig: bytes) -> bytes:
    """``gpgsig`` header lines for a commit (continuation lines indented by one space)."""
    lines = signed_block(sig).rstrip(b"\n").split(b"\n")
    return b"gpgsig " + b"\n ".join(lines) + b"\n"
