"""Screen summaries for secrets and raw personal data before anything is committed.

A trace is kept forever and cloned freely, so a token or an e-mail address that
reaches a commit is as good as published. ``check_summary`` calls a ``Screen``
on every summary (and ``check_call`` on every ``target``, explicit session
label and explicit agent name), after ``normalized_variants`` undoes the usual
disguises (zero-width characters, full-width forms, percent-encoding); the screen answers with *descriptions* of what it found
(``"an AWS access key id (aws-access-key)"``), never the matched text, so the
refusal itself cannot leak the secret.

The built-in patterns (``PATTERNS``) are listed with examples in
``docs/security.md``. They are configurable per root folder:

* ``<root>/screening.yaml``::

      disable: [phone-number]            # built-in names to switch off
      add:                               # extra patterns: name -> Python regex
        ticket-secret: 'TCK-[0-9]{8}'
      entropy: {min_length: 24, min_bits: 3.5}   # tune high-entropy-string

* ``HALO_SCREEN`` (environment, applied after the file): ``off`` disables the
  screen; otherwise a comma-separated list of names to disable, such as
  ``HALO_SCREEN=phone-number,email-address``.

A broken configuration (bad YAML, a regex that does not compile, an unknown
name) fails closed: reading still works, but every summary is refused with a
message naming the problem, rather than screening less than the owner believes.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .errors import InvalidCall
from .model import load_yaml

CONFIG_FILE = "screening.yaml"
ENV_VAR = "HALO_SCREEN"


@dataclass(frozen=True)
class Pattern:
    """One named detector.

    ``check`` (optional) confirms a regex match, e.g. the Luhn checksum of a
    card number, so the regex can stay permissive without false alarms.
    """

    name: str
    label: str  # what the refusal says was found
    regex: re.Pattern[str]
    check: Callable[[re.Match[str]], bool] | None = None
    generic: bool = False  # named only when no specific pattern found something

    def found(self, text: str) -> bool:
        for m in self.regex.finditer(text):
            if self.check is None or self.check(m):
                return True
        return False


class Screen:
    """Callable returning descriptions of what was found (never the text itself)."""

    def __init__(self, patterns: Iterable[Pattern]):
        self.patterns = list(patterns)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.patterns]

    def __call__(self, text: str) -> list[str]:
        variants = normalized_variants(text)
        hits = [p for p in self.patterns if any(p.found(v) for v in variants)]
        if any(not p.generic for p in hits):  # "a GitHub token" says more than "a random string"
            hits = [p for p in hits if not p.generic]
        return [f"{p.label} ({p.name})" for p in hits]

    def without(self, names: Iterable[str]) -> "Screen":
        """This screen minus the named patterns (an unknown name is refused)."""
        drop = {n.strip() for n in names if n.strip()}
        unknown = sorted(drop - set(self.names))
        if unknown:
            raise InvalidCall(
                f"unknown screening pattern(s) {', '.join(unknown)}; the patterns are: {', '.join(self.names)}"
            )
        return Screen(p for p in self.patterns if p.name not in drop)


# --- normalisation -------------------------------------------------------------------

_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")


# Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt,
# Unicode 15.1): code points a renderer shows as nothing when it cannot show
# them. Besides the format characters (category Cf) they include variation
# selectors (U+FE0F, U+E0100…), the combining grapheme joiner U+034F, the Hangul
# fillers U+115F, U+1160, U+3164, U+FFA0 and unassigned tag-block code points:
# all invisible inside a token, so all are dropped before matching.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_INVISIBLE_RE = re.compile(
    "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _DEFAULT_IGNORABLE) + "]"
)


def first_invisible(text: str) -> str | None:
    """The first character of ``text`` that shows as nothing or reorders what follows
    (a default-ignorable code point, a format character), or None."""
    import unicodedata

    m = _INVISIBLE_RE.search(text)
    if m:
        return m.group()
    return next((c for c in text if unicodedata.category(c) == "Cf"), None)


def _fold(text: str) -> str:
    """NFKC with every default-ignorable code point and format character removed.

    Dropped before and after NFKC: a Hangul filler folds to another one, and a
    character hidden between two halves of a compatibility form must not keep
    them apart."""
    import unicodedata

    text = _INVISIBLE_RE.sub("", text)
    folded = _INVISIBLE_RE.sub("", unicodedata.normalize("NFKC", text))
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


def normalized_variants(text: str) -> list[str]:
    """The forms of ``text`` the patterns are run on: as written; NFKC-normalised
    with every default-ignorable code point removed (format characters such as a
    zero-width space or a soft hyphen, variation selectors, the combining grapheme
    joiner, Hangul fillers) and full-width forms folded (``＠``); and that form
    percent-decoded when it holds ``%XX`` escapes (``password%3D…``, ``%40`` for
    ``@``). A hit in any form counts, so normalising can only add refusals, never
    hide one."""
    from urllib.parse import unquote

    out = [text]
    folded = _fold(text)
    if folded != text:
        out.append(folded)
    if _PERCENT_RE.search(folded):
        decoded = _fold(unquote(folded, errors="replace"))
        if decoded not in out:
            out.append(decoded)
    return out


def quoted(value: Any, limit: int = 40) -> str:
    """How a refusal shows the value it refuses (an unknown parameter or tool name, an
    invalid agent name or id): its ``repr`` cut to ``limit`` characters, or, when the
    built-in screen finds a secret or personal data in it, what was found instead, so a
    refusal never echoes a token the caller put in the wrong place."""
    text = value if isinstance(value, str) else repr(value)
    found = default_screen(text[:20_000]) if text else []
    if not found and re.search(r"[/:]", text):  # a URI or path: an address after a '/' counts here
        found = default_screen(re.sub(r"[/:]", " ", text[:20_000]))
    if found:
        return f"(withheld: it looks like it contains {', '.join(found)})"
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "…")
    return text if len(text) <= limit else text[:limit] + "…"


# --- checks that confirm a match -----------------------------------------------------


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# Issuer prefixes (IIN ranges) with the lengths their cards use; a Luhn-valid
# number outside them (an order number, a millisecond timestamp) is not a card.
_CARD_RE = re.compile(r"(?<![\w.,-])(?:\d[ -]?){12,18}\d(?![\w-]|[.,]\d)")
_ISSUERS = re.compile(
    r"4\d{12}(?:\d{3}){0,2}"  # Visa 13/16/19
    r"|(?:5[1-5]\d{2}|222[1-9]|22[3-9]\d|2[3-6]\d{2}|27[01]\d|2720)\d{12}"  # Mastercard
    r"|3[47]\d{13}"  # American Express
    r"|3(?:0[0-5]|[68]\d)\d{11,16}"  # Diners Club
    r"|(?:6011|65\d{2}|64[4-9]\d)\d{12,15}"  # Discover
    r"|35(?:2[89]|[3-8]\d)\d{12,15}"  # JCB
    r"|62\d{14,17}"  # UnionPay
    r"|(?:5[06-9]|6\d)\d{10,17}\Z"  # Maestro
)


def _card(m: re.Match[str]) -> bool:
    digits = re.sub(r"[ -]", "", m.group())
    return bool(_ISSUERS.fullmatch(digits)) and len(set(digits)) > 1 and luhn_ok(digits)


def shannon_bits(text: str) -> float:
    """Shannon entropy in bits per character of ``text``'s own character counts."""
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


# Runs that read as words: "Server", "json", "HTTP", "2026". Identifiers and
# paths are mostly made of them; random keys mostly are not.
_WORDISH = re.compile(r"[A-Z]?[a-z]{2,}|[A-Z]{3,}|\d{2,}")


@dataclass(frozen=True)
class EntropyRule:
    """What counts as a "long high-entropy string".

    A run of at least ``min_length`` token characters that mixes upper case,
    lower case and digits, reaches ``min_bits`` of entropy per character, has
    less than 70% of its characters in word-like runs, and has fewer than one
    ``_ . / -`` per 8 characters. Identifiers (``xmlSecTransformAes128``),
    paths and kebab-case names pass; 9 in 10 random 24-40 character keys do
    not. Pure hex runs are exempt: commit ids and content hashes belong in an
    audit trail.
    """

    min_length: int = 24
    min_bits: float = 3.5

    def __call__(self, m: re.Match[str]) -> bool:
        token = m.group().strip("=")
        n = len(token)
        if n < self.min_length or re.fullmatch(r"[0-9a-fA-F-]+", token):
            return False
        if not (re.search(r"[a-z]", token) and re.search(r"[A-Z]", token) and re.search(r"\d", token)):
            return False
        if len(re.findall(r"[_./-]", token)) * 8 >= n:
            return False
        if sum(len(w) for w in _WORDISH.findall(token)) >= 0.7 * n:
            return False
        return shannon_bits(token) >= self.min_bits


_PLACEHOLDER = re.compile(
    r"(?i)(?:\*+|x{3,}|\.{3,}|…|<[^>]*>|\$\{?\w+\}?|%\(?\w+\)?s?|\{\{?[^}]*\}?\}|null|none|nil|true|false|"
    r"redacted|hidden|masked|removed|empty|unset|changeme|placeholder|secret|password|example|your[_-]?\w*)"
)


def _assignment(m: re.Match[str]) -> bool:
    """A credential-like key assigned a real value (not ``***`` or ``$VAR``)."""
    value = m.group("value").strip("'\"")
    if len(value) < 3 or _PLACEHOLDER.fullmatch(value) or re.search(r"[<>\[\]{}()]", value):
        return False  # ``***``, ``$VAR``, ``<your-key>``, grammar such as ``token = [CFWS]``
    if m.group("op") == "=" or m.group("quote"):
        return True
    # ``secret: ...`` reads like prose too ("password: reset by the user"); only
    # a value that does not look like a plain word counts after a colon.
    return len(value) >= 6 and bool(re.search(r"[\d\W_]", value)) and not re.fullmatch(r"[A-Za-z]+[.,;:!?]?", value)


# --- the built-in list -----------------------------------------------------------------

_KEY_NAMES = (
    r"(?:password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|"
    r"private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|session[_-]?token|bearer[_-]?token|token|"
    r"credentials?|aws[_-]?secret[_-]?access[_-]?key)"
)
# Lookbehind, not \b: ``DB_PASSWORD=`` is a credential key, and ``_`` is a word character
# (the same holds for ``deploy_ghp_…`` and the other prefixed tokens above).
_ASSIGNMENT_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,40}[_.-]){0,4}" + _KEY_NAMES + r"(?:[\"'])?\s*(?P<op>[:=])\s*"
    r"(?P<quote>[\"'])?(?P<value>[^\s\"',;)}\]]+)"
)

def builtin_patterns(entropy: EntropyRule = EntropyRule()) -> list[Pattern]:
    """The documented default list, in the order refusals name them."""
    P = Pattern
    return [
        # Secrets
        P("private-key", "a private key block", re.compile(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")),
        P("aws-access-key", "an AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b")),
        P("github-token", "a GitHub token", re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9])")),
        P(
            "gitlab-token",
            "a GitLab token",
            re.compile(r"(?<![A-Za-z0-9])(?:glpat|glptt|gldt|glrt|glcbt|gloas|glsoat|glft|glimt|glagent)-[A-Za-z0-9_-]{20,}"),
        ),
        P("slack-token", "a Slack token", re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}")),
        P("slack-webhook", "a Slack webhook URL", re.compile(r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/-]{20,}")),
        P("google-api-key", "a Google API key", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}")),
        P("google-oauth-token", "a Google OAuth token", re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}")),
        P("stripe-key", "a Stripe key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}")),
        P("api-secret-key", "an API secret key (sk-…)", re.compile(r"\bsk-(?:[a-z]{2,8}-)?[A-Za-z0-9_-]{20,}")),
        P("npm-token", "an npm token", re.compile(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
        P("pypi-token", "a PyPI token", re.compile(r"(?<![A-Za-z0-9])pypi-[A-Za-z0-9_-]{50,}")),
        P("sendgrid-key", "a SendGrid key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
        P("jwt", "a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
        P(
            "bearer-token",
            "a bearer or basic authorization credential",
            re.compile(r"(?i)\b(?:bearer|basic)\s+(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*"),
        ),
        P(
            "url-credentials",
            "a URL with a user name and password",
            re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@]{1,100}:[^\s/@]{1,200}@[A-Za-z0-9.-]"),
        ),
        P("secret-assignment", "a password, key or token assignment", _ASSIGNMENT_RE, _assignment),
        P(
            "high-entropy-string",
            "a long random-looking string (a likely key or token)",
            re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{%d,}" % max(entropy.min_length, 8)),
            entropy,
            generic=True,
        ),
        # Personal data
        P(
            "email-address",
            "an e-mail address",
            re.compile(r"(?<![\w.+:/%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}\b"),
        ),
        P(
            "phone-number",
            "a phone number",
            re.compile(
                r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}\d(?![\w.]\d)"  # international: +44 20 7946 0958
                r"|(?<![\w.-])\(\d{3}\)\s?\d{3}[ .-]\d{4}\b"  # (555) 123-4567
                r"|(?<![\w.-])\d{3}[ .-]\d{3}[ .-]\d{4}(?![\w.-]?\d)"  # 555-123-4567
            ),
            lambda m: 8 <= sum(c.isdigit() for c in m.group()) <= 15,
        ),
        P("card-number", "a payment card number", _CARD_RE, _card),
        P(
            "us-ssn",
            "a US social security number",
            re.compile(r"(?<![\w.-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-]|\.\d)"),
        ),
        P(
            "iban",
            "an IBAN bank account number",
            re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
            lambda m: _iban_ok(m.group()),
        ),
    ]


def _iban_ok(text: str) -> bool:
    s = text.replace(" ", "")
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


PATTERNS = builtin_patterns()
default_screen = Screen(PATTERNS)


# --- configuration ----------------------------------------------------------------------

_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")


def screen_from_config(config: Mapping[str, Any] | None, env: str | None = None) -> Screen | None:
    """Build a screen from a parsed ``screening.yaml`` mapping and ``HALO_SCREEN``.

    Returns None when the screen is switched off (``HALO_SCREEN=off`` or
    ``enabled: false`` in the file).
    """
    config = dict(config or {})
    unknown = sorted(set(config) - {"disable", "add", "entropy", "enabled"})
    if unknown:
        raise InvalidCall(f"{CONFIG_FILE}: unknown key(s) {', '.join(unknown)}; use disable, add, entropy, enabled")
    if env is not None and env.strip().lower() in ("off", "none", "0", "false", "no"):
        return None
    if config.get("enabled", True) is False:
        return None
    entropy_cfg = config.get("entropy") or {}
    if not isinstance(entropy_cfg, dict) or set(entropy_cfg) - {"min_length", "min_bits"}:
        raise InvalidCall(f"{CONFIG_FILE}: 'entropy' takes min_length (an integer) and min_bits (a number)")
    try:
        rule = EntropyRule(int(entropy_cfg.get("min_length", 24)), float(entropy_cfg.get("min_bits", 3.5)))
    except (TypeError, ValueError):
        raise InvalidCall(f"{CONFIG_FILE}: 'entropy' takes min_length (an integer) and min_bits (a number)") from None
    screen = Screen(builtin_patterns(rule))
    disable = config.get("disable") or []
    if not isinstance(disable, list) or not all(isinstance(n, str) for n in disable):
        raise InvalidCall(f"{CONFIG_FILE}: 'disable' must be a list of pattern names such as [phone-number]")
    screen = screen.without(disable)
    added = config.get("add") or {}
    if not isinstance(added, dict):
        raise InvalidCall(f"{CONFIG_FILE}: 'add' must map new pattern names to regular expressions")
    extra = []
    for name, regex in added.items():
        if not isinstance(name, str) or not _NAME_RE.match(name) or name in screen.names:
            raise InvalidCall(
                f"{CONFIG_FILE}: pattern name {str(name)[:40]!r} must be new, lowercase letters, digits and '-'"
            )
        if not isinstance(regex, str):
            raise InvalidCall(f"{CONFIG_FILE}: pattern {name!r} must be a regular expression string")
        try:
            compiled = re.compile(regex)
        except re.error as e:
            raise InvalidCall(f"{CONFIG_FILE}: pattern {name!r} is not a valid regular expression ({e})") from None
        extra.append(Pattern(name, f"a match of the configured pattern {name!r}", compiled))
    screen = Screen(screen.patterns + extra)
    if env:
        screen = screen.without(env.split(","))
    return screen


class BrokenConfig(Screen):
    """Stands in for a screen whose configuration is broken: refuses every summary.

    Reading commands keep working; writing waits until the owner fixes the file,
    because logging with less screening than configured could leak.
    """

    def __init__(self, problem: str):
        super().__init__([])
        self.problem = problem

    def __call__(self, text: str) -> list[str]:
        raise InvalidCall(f"the screening configuration is broken ({self.problem}); nothing was logged: the root's owner must fix it")


def load_screen(root: str | os.PathLike[str]) -> Screen | None:
    """The screen for a root folder: built-ins, then ``screening.yaml``, then ``HALO_SCREEN``."""
    path = Path(root) / CONFIG_FILE
    env = os.environ.get(ENV_VAR)
    try:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = None
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidCall(f"cannot read {path}: {e}") from None
        if text is None and not env:
            return default_screen
        config = None
        if text is not None:
            try:
                config = load_yaml(text)
            except Exception as e:  # yaml.YAMLError; model hides which YAML library is used
                raise InvalidCall(f"{path} is not valid YAML: {str(e).splitlines()[0]}") from None
            if config is not None and not isinstance(config, dict):
                raise InvalidCall(f"{path} must be a mapping with the keys disable, add, entropy, enabled")
        return screen_from_config(config, env)
    except InvalidCall as e:
        return BrokenConfig(str(e))
