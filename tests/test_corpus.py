"""The diagnosis against traces written apart from the rules.

Labelled sets in the format ``halo-git export`` writes: the development corpus
beside the checkout (``../shared/corpus``, with its own scorer); eighteen traces
two separate authors wrote for this project without reading the rules
(``tests/fixtures/traces_apart``); and both seed analyses acted out by a third
(``tests/fixtures/seed_modelled``, plain and diligently logged). A problem is hit when a finding *about* one
of its events (the finding's first id) reaches the reviewer's least severity; a
false alarm is a finding at low or above about an event of a healthy trace or a
spare event. The figures are in docs/report.md; these tests keep them from
sliding back.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from halo_git.diagnosis import SEVERITY_RANK, diagnose
from halo_git.jsonl import parse_lines, plan

HERE = Path(__file__).resolve().parent
APART = HERE / "fixtures" / "traces_apart"
SEED_MODELLED = HERE / "fixtures" / "seed_modelled"
SHARED = HERE.parent.parent / "shared" / "corpus"
NEED = {s: 3 - SEVERITY_RANK[s] for s in SEVERITY_RANK}  # info 0 … high 3, as the scorer ranks them


def score(folder: Path) -> tuple[int, int, int, list[str]]:
    """(problems hit at severity, problems, false alarms, misses described) over a folder of cases."""
    return score_files(sorted(folder.glob("*.labels.yaml")))


def score_files(labels: list[Path]) -> tuple[int, int, int, list[str]]:
    hit = total = alarms = 0
    notes: list[str] = []
    for lab_path in labels:
        lab = yaml.safe_load(lab_path.read_text(encoding="utf-8"))
        case = lab_path.name[: -len(".labels.yaml")]
        lines = lab_path.with_name(case + ".jsonl").read_text(encoding="utf-8").splitlines()
        events = plan(parse_lines(lines), 1, case, "default", lambda n: "")
        found = diagnose(events, agent=case, branch="main", head=None).findings
        for p in lab.get("problems") or []:
            total += 1
            best = max((NEED[f.severity] for f in found if f.ids[:1] and f.ids[0] in p["events"]), default=-1)
            if best >= NEED[p.get("min_severity", "low")]:
                hit += 1
            else:
                notes.append(f"{case} {p['id']} {p['shape']}")
        spare = set(lab.get("spare") or [])
        for f in found:
            if NEED[f.severity] >= 1 and (lab.get("healthy") or (f.ids and f.ids[0] in spare)):
                alarms += 1
                notes.append(f"{case} false {f.rule} {f.severity} {f.ids[0]}")
    return hit, total, alarms, notes


def test_traces_written_apart_hit_and_no_false_alarm():
    hit, total, alarms, notes = score(APART)
    assert total == 33
    assert hit >= 24 and alarms == 0, notes  # 28/33 and 0 when recorded in docs/report.md


MORE = HERE / "fixtures" / "traces_apart_more"


def test_four_later_sets_written_apart():
    """Four more sets (46 traces, 108 problems, 16 healthy runs), each written by a separate author who
    read only the event model and the corpus README, and each measured once before any rule was changed
    for it (the first figures are on the Report page). They now guard the readings they led to."""
    hit, total, alarms, notes = score(MORE)
    assert total == 108
    assert hit >= 97 and alarms <= 2, notes  # 99/108 and 2 this round (94 before)


LATE = HERE / "fixtures" / "traces_apart_late"


def test_eleven_sets_written_apart_this_round():
    """Eleven further sets (132 traces, 274 problems, 50 healthy runs) written the same way, each measured once
    before any rule changed for it (first figures on the Report page); they now guard the readings they
    led to."""
    hit, total, alarms, notes = score(LATE)
    assert total == 274
    assert hit >= 245 and alarms <= 6, notes  # 245/274 and 6 now (244 and 6 at the start of the round of Z85-Z92)


LATEST = HERE / "fixtures" / "traces_apart_latest"


def test_eight_sets_written_apart_in_the_latest_round():
    """Sets R-Y (96 traces, 198 problems, 39 healthy runs), written the same way and each measured once before
    any rule changed for it (first figures on the Report page); they now guard the readings they led to."""
    hit, total, alarms, notes = score(LATEST)
    assert total == 198
    assert hit >= 157 and alarms <= 9, notes  # 157/198 and 9 now (147 and 13 earlier; 139 before the Z round)


NEWEST = HERE / "fixtures" / "traces_apart_z"


def test_twelve_sets_written_apart_in_the_newest_round():
    """Sets Z1-Z12 (144 traces, 239 problems, 53 healthy runs), written the same way, each asked for in batches
    of four while the rules changed and measured once as it arrived, before any rule changed for it (first
    figures on the Report page: 40/82, 46/76 and 50/81 by batch); they now guard the readings they led to."""
    hit, total, alarms, notes = score(NEWEST)
    assert total == 239
    assert hit >= 194 and alarms <= 5, notes  # 194/239 and 5 now (193 before the round of Z93-Z104) (10 before this round's calibration; 19 and 28 earlier)


UNREAD = HERE / "fixtures" / "traces_apart_z_unread"


def test_four_sets_written_apart_and_never_read_for_development():
    """Sets Z13-Z16 (48 traces, 81 problems, 17 healthy runs), asked for last and measured once on arrival;
    no rule was changed after reading them, so these figures are held-out ones (52/81 and 19 false alarms,
    against 49/81 and 20 for the diagnosis this round began with). Kept so a change that loses ground on
    traces nobody tuned for shows at once."""
    hit, total, alarms, notes = score(UNREAD)
    assert total == 81
    assert hit >= 63 and alarms <= 4, notes  # 66/81 and 4 now (65 and 6 before this round; 53 and 17 earlier)


FRESH = HERE / "fixtures" / "traces_apart_z_fresh"


def test_four_sets_written_after_the_round_and_never_read():
    """Sets Z17-Z20 (48 traces, 86 problems, 16 healthy runs), written by four separate authors after
    this round's last rule change and scored once on arrival (56/86 and 35 false alarms; the diagnosis of
    the round before: 54/86 and 37). Nothing was fitted to them; they hold the line."""
    hit, total, alarms, notes = score(FRESH)
    assert total == 86
    assert hit >= 69 and alarms <= 5, notes  # 69/86 and 5 now: a problem an untrue HALO-A2 had hit by chance
    # (70 before the round of Z93-Z104; 71 and 8 earlier; 56 and 35 at first measure)


LAST = HERE / "fixtures" / "traces_apart_z_last"


def test_four_sets_written_last_and_never_read():
    """Sets Z21-Z24 (48 traces, 82 problems, 16 healthy runs), written by four more authors after every rule
    change of the round and scored once on arrival: 41/82 and 29 false alarms (the diagnosis the round began
    with: 40/82 and 29; the round before: 37/82 and 37). Nothing was read or fitted to them."""
    hit, total, alarms, notes = score(LAST)
    assert total == 82
    assert hit >= 62 and alarms <= 9, notes  # 62/82 and 9 now (11 before the round of Z93-Z104) (41 and 29 at first measure; 53 and 14 a round later)
    # 62 and 13 once a reviewed note two months old reads as stale


ROUND = HERE / "fixtures" / "traces_apart_z_round"


def test_four_sets_written_around_the_development_systems_and_never_read():
    """Sets Z25-Z28 (48 traces, 83 problems, 16 healthy runs), written this round by four separate authors
    acting out the kinds of system the development corpus holds (personal assistants, coding and operations
    agents, business desks and tutors), and scored once after the round's last rule change: 62/83 (75 %)
    and 43 false alarms, 33 of them on healthy runs (the diagnosis the round began with: 60/83 and 48). Read in
    the round after, they now guard the readings they led to."""
    hit, total, alarms, notes = score(ROUND)
    assert total == 83
    assert hit >= 65 and alarms <= 9, notes  # 68/83 and 9 now (67 and 11 before this round; 62 and 43 at first measure)


HELD = HERE / "fixtures" / "traces_apart_z_held"


def test_four_sets_written_during_the_round_and_scored_once_at_its_end():
    """Sets Z29-Z32 (48 traces, 81 problems, 16 healthy runs), written by four separate authors while the round's
    rules changed (clinical and care administration, infrastructure and data operations, business desks, a mix)
    and scored once after its last rule change: 56/81 (69 %) and 24 false alarms, 20 of them on healthy runs; the
    diagnosis the round began with: 56/81 and 25. Read since: 56/81 and 16 false alarms."""
    hit, total, alarms, notes = score(HELD)
    assert total == 81
    assert hit >= 60 and alarms <= 8, notes


FINAL = HERE / "fixtures" / "traces_apart_z_final"


def test_four_sets_held_out_to_the_end_of_the_next_round():
    """Sets Z33-Z36 (48 traces, 82 problems, 16 healthy runs), written by four separate authors at the start of the
    round (transport, field service and casework; software, data and ML engineering; small-firm finance, legal,
    sales and HR; personal, family, health and hobby assistants) and scored once after its last rule change: 49/82
    (60 %) and 32 false alarms, 26 on healthy runs; the diagnosis the round began with: 49/82 and 30. Readings
    were added after they were read (a gauge read with its figure; a user's change told as made by the person whose
    text it rests on; a transient failure retried on the spot; a verb echoed in another tense; a name owning
    what was approved; a preparation that sets out to confirm; over a limit; what a promise says it will pass
    on): 51/82 and 13 false alarms; 50/82 and 11 since a result reporting a refusal closes HALO-A2's loop (a
    stale key-safe code had been hit by chance through the A2 of the refused call-out)."""
    hit, total, alarms, notes = score(FINAL)
    assert total == 82
    assert hit >= 52 and alarms <= 8, notes


WIDE = HERE / "fixtures" / "traces_apart_z_wide"


def test_eight_sets_scored_before_they_were_read():
    """Sets Z37-Z44 (96 traces, 161 problems, 32 healthy runs), written by eight separate authors at the start
    of the round (public services; security and IT operations; research and media; retail and hospitality;
    farming and conservation; healthcare operations; education; money operations and insurance). Z37 and Z39
    were scored, never read, as a validation pair while the round's readings were chosen (30/41; false alarms 21
    at the round's start, 12 at its last change); the other six were held out and scored once, after the last
    rule change: 83/120 (69 %) and 38 false alarms, 28 on healthy runs (the round's start: 83/120 and 40).
    Read since: the readings taken from them bring the eight sets from 113/161 and 48 false alarms to 114/161
    and 40, the next round's to 121/161 and 28, and a stale note's age to 124/161 and 30."""
    hit, total, alarms, notes = score(WIDE)
    assert total == 161
    assert hit >= 124 and alarms <= 20, notes


CLOSE = HERE / "fixtures" / "traces_apart_z_close"


def test_four_sets_held_out_to_the_close_of_the_round():
    """Sets Z45-Z48 (48 traces, 80 problems, 16 healthy runs), written by four more authors in the middle of the
    round (construction and property; games, streaming and entertainment; legal, compliance and public records;
    manufacturing and energy) and scored once, after every reading of the round: 53/80 (66 %) and 30 false
    alarms, 19 on healthy runs in 9 of 16 (the round's start: 54/80 and 31). One reading since ('manual' alone
    is no repair) gives back the hit it had cost: 54/80 and 30; the next round's readings, taken from these
    sets among others, 58/80 and 25; a stale note's age, 61/80 and 25."""
    hit, total, alarms, notes = score(CLOSE)
    assert total == 80
    assert hit >= 63 and alarms <= 13, notes


LATER = HERE / "fixtures" / "traces_apart_z_later"


def test_four_sets_held_out_for_a_round_of_readings_from_the_sets_before():
    """Sets Z49-Z52 (48 traces, 82 problems, 16 healthy runs), written by four more authors at the start of the
    round (transport and travel logistics; charities, community and benefits; personal and developer assistants;
    telecoms and customer support) and scored once, after every reading the round took from Z37-Z48: 49/82 (60 %)
    and 27 false alarms, 22 on healthy runs in 12 of 16; the round's start: 49/82 and 28 (23 on 12 runs). Read
    since: 48/82 and 19 (a loosening hit by chance through HALO-R6 went once the person's instruction it rested on
    read as a decision); a stale note's age, 54/82 and 20."""
    hit, total, alarms, notes = score(LATER)
    assert total == 82
    assert hit >= 55 and alarms <= 11, notes


NEXT = HERE / "fixtures" / "traces_apart_z_next"


def test_four_sets_held_out_while_the_age_of_a_note_was_read():
    """Sets Z53-Z56 (48 traces, 80 problems, 16 healthy runs), written by four more authors at the start of the
    round (science and engineering operations; food and drink production; HR and the workplace; sports, fitness
    and leisure) and scored twice without being read: 46/80 (58 %) and 20 false alarms, 17 on healthy runs in
    9 of 16, at the round's start; 49/80 (61 %) and the same 20 after the round's readings (a reviewed note two
    months old is stale; a result that says it happened again recurs)."""
    hit, total, alarms, notes = score(NEXT)
    assert total == 80
    assert hit >= 51 and alarms <= 10, notes


AFTER = HERE / "fixtures" / "traces_apart_z_after"


def test_four_sets_written_after_the_rounds_first_readings_and_scored_once():
    """Sets Z57-Z60 (48 traces, 80 problems, 16 healthy runs), written by four more authors after the round's
    first readings (public safety and emergency services; pets, vets and animal care; automotive; arts, culture
    and heritage) and scored once, unread: 40/80 (50 %) and 29 false alarms, 20 on healthy runs in 12 of 16;
    the round's start gives 40/80 and 27 (19 on 11 runs). The round's readings found nothing more here. Read
    since for the two false alarms they added: a state restored said with "again" is no recurrence; and
    accepting a recommendation decides (40/80, 27)."""
    hit, total, alarms, notes = score(AFTER)
    assert total == 80
    assert hit >= 42 and alarms <= 15, notes


BEYOND = HERE / "fixtures" / "traces_apart_z_beyond"


def test_four_sets_held_out_until_the_rounds_readings_were_chosen():
    """Sets Z61-Z64 (48 traces, 80 problems, 16 healthy runs), written by four more authors at the start of the
    round (farming and food supply; shipping and ports; telecoms, utilities and field networks; charities and
    community groups) and scored twice before anyone read them: 51/80 (64 %) and 40 false alarms, 28 on healthy
    runs in 13 of 16, both at the round's start and after the round's first four readings (chosen from the sets
    read before). Read since, four readings came from them (a precaution drawn from a failure; who made a user's
    change; a step that asks whether a note still holds; a temporary cap): 51/80 and 32 (20 on 10 runs); then
    three more (a measure past a limit stated earlier, or in the next sentence; harm to the living; a named
    person's agreement an agent's change claims): 56/80 (70 %) and 32; 58/80 with the readings from Z65-Z68."""
    hit, total, alarms, notes = score(BEYOND)
    assert total == 80
    assert hit >= 61 and alarms <= 23, notes


FURTHER = HERE / "fixtures" / "traces_apart_z_further"


def test_four_sets_held_out_until_every_reading_of_the_round_was_in():
    """Sets Z65-Z68 (48 traces, 80 problems, 16 healthy runs), written by four more authors once the round's
    readings from Z61-Z64 were in (construction and facilities; insurance and claims; schools, universities and
    exams; hotels, restaurants and events) and scored unread: 53/80 (66 %) and 24 false alarms, 18 on healthy runs
    in 8 of 16, the same at the round's start and with every reading up to then. Read since, eight readings came
    from them (a change under a one-off grant loosens; "added to the approved vendors" permits; a thing put back
    on a condition is no grant's end; the approver a claim names, opening their own message; a proposal agreed
    in the same breath; a need in the measure's own unit; a name removed from a list; an execution on a stale
    note is high): 61/80 (76 %) and 16 (10 on 7 runs)."""
    hit, total, alarms, notes = score(FURTHER)
    assert total == 80
    assert hit >= 62 and alarms <= 10, notes


def test_seed_analyses_modelled_apart():
    """Both seed analyses, acted out by a separate author with the analysts' 13 key observations each,
    plainly and with diligent logging: at least 9 of 13 per seed, as the Report page records."""
    results = {}
    for lab in sorted(SEED_MODELLED.glob("*.labels.yaml")):
        hit, total, alarms, notes = score_files([lab])
        results[lab.name[: -len(".labels.yaml")]] = (hit, total, alarms)
    assert set(results) == {"seed-000", "seed-000-diligent", "seed-001", "seed-001-diligent"}
    for name, (hit, total, alarms) in results.items():
        assert total == 13 and hit >= 9, (name, hit)
    assert sum(a for _, _, a in results.values()) <= 3  # false alarms on spare events, all four traces
    for seed in ("seed-000", "seed-001"):  # diligent logging costs nothing (12 and 12 for both when recorded)
        assert results[seed + "-diligent"][0] >= results[seed][0]


@pytest.mark.skipif(not SHARED.is_dir(), reason="the development corpus (../shared/corpus) is not beside this checkout")
def test_development_corpus_in_process():
    hit, total, alarms, notes = score(SHARED / "cases")
    assert hit >= 0.8 * total and alarms == 0, notes  # 54/54 and 0 when recorded in docs/report.md


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "score.py").is_file(), reason="the corpus scorer (../shared/corpus/score.py) is not here")
def test_development_corpus_through_the_cli_scorer(tmp_path):
    """The corpus's own scorer, which imports each case and runs ``halo-git check --format json``."""
    halo = Path(sys.executable).with_name("halo-git")
    r = subprocess.run([sys.executable, str(SHARED / "score.py"), "--halo", str(halo)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    recall = int(last.split("recall ")[1].split("/")[0])
    total = int(last.split("/")[1].split(" ")[0])
    alarms = int(last.split("false alarms ")[1].split(",")[0])
    assert recall >= 0.8 * total and alarms == 0, r.stdout[-3000:]
    assert "ERROR" not in r.stdout


ONWARD = HERE / "fixtures" / "traces_apart_z_onward"


def test_four_sets_held_out_to_the_round_start_and_after_its_first_readings():
    """Sets Z69-Z72 (48 traces, 81 problems, 16 healthy runs), written by four more authors at this round's
    start (aviation and airports; tax, customs and public finance; marketing, advertising and sales; clinical
    research and pharma) and scored unread twice: 58/81 (72 %) and 25 false alarms, 16 on healthy runs in 8 of
    16, with the diagnosis the round began with; 57/81 and 20 (12 on 6 of 16) once the user's log counted as
    the user's word and the findings reviewers never raise alone were info. Read since, three readings came from
    them (a limit "returned to" its figure; a period seen to end; a change within the user's bound is governed
    material): 57/81 and 17 (9 on 6 runs)."""
    hit, total, alarms, notes = score(ONWARD)
    assert total == 81
    assert hit >= 57 and alarms <= 13, notes


AHEAD = HERE / "fixtures" / "traces_apart_z_ahead"


def test_four_sets_held_out_until_the_first_readings_of_the_round_were_in():
    """Sets Z73-Z76 (48 traces, 80 problems, 16 healthy runs), written by four more authors once the round's
    first readings were in (mining, quarrying, oil and gas; waste, recycling and environmental services;
    mortgages, property and housing; software engineering and data platforms) and scored unread: 54/80 (68 %)
    and 33 false alarms, 27 on healthy runs in 12 of 16, with the diagnosis the round began with; 54/80 and 29
    (24 on 12 of 16) with every reading up to then. Read since, two readings came from them (a note keeping the
    user's decided rule; the plan a person agreed, put back): 54/80 and 22 (17 on 9 runs)."""
    hit, total, alarms, notes = score(AHEAD)
    assert total == 80
    assert hit >= 55 and alarms <= 17, notes


LAST_ROUND = HERE / "fixtures" / "traces_apart_z_last_round"


def test_four_sets_held_out_until_the_readings_from_the_first_held_out_sets_were_in():
    """Sets Z77-Z80 (48 traces, 81 problems, 16 healthy runs), written by four more authors once the readings
    from Z69-Z72 were in (government and civic services; logistics and supply chain; personal services and small
    business; media, publishing and research services) and scored unread: 64/81 (79 %) and 31 false alarms, 15
    on healthy runs in 10 of 16, with the diagnosis the round began with; 64/81 and 25 (11 on 8 of 16) with every
    reading up to then. Read since, two readings came from them (a matter that came back "again"; a message
    naming what it takes back): 66/81 and 25."""
    hit, total, alarms, notes = score(LAST_ROUND)
    assert total == 81
    assert hit >= 66 and alarms <= 21, notes


END = HERE / "fixtures" / "traces_apart_z_end"


def test_four_sets_held_out_to_the_end_of_the_round():
    """Sets Z81-Z84 (48 traces, 80 problems, 16 healthy runs), written by four more authors once every reading
    of the round was in (banking operations and payments; rail, roads and public transport; care and social
    services; home and personal assistants) and scored unread: 59/80 (74 %) and 29 false alarms, 23 on healthy
    runs in 13 of 16, with the diagnosis the round began with; 59/80 and 27 (22 on 13 of 16) at its end. Read in
    the round after, with Z85-Z88: 60/80 and 22 (17 on 12 of 16)."""
    hit, total, alarms, notes = score(END)
    assert total == 80
    assert hit >= 60 and alarms <= 21, notes


SEQUEL = HERE / "fixtures" / "traces_apart_z_sequel"


def test_four_sets_written_at_the_rounds_start_and_scored_unread():
    """Sets Z85-Z88 (48 traces, 64 problems, 16 healthy runs), written by four more authors at the start of the
    round after Z81-Z84 (agriculture, fisheries and the environment; law, compliance and public administration;
    personal and creative life; industrial operations and engineering) and scored unread: 48/64 (75 %) and 45
    false alarms, 23 on healthy runs in 9 of 16, with the diagnosis the round began with and with its first
    readings alike. Read since (their authors log work within the agent's remit as trigger=self: 31 of the 45
    were HALO-A1 high)."""
    hit, total, alarms, notes = score(SEQUEL)
    assert total == 64
    assert hit >= 49 and alarms <= 36, notes


CODA = HERE / "fixtures" / "traces_apart_z_coda"


def test_four_sets_written_mid_round_and_scored_unread():
    """Sets Z89-Z92 (48 traces, 64 problems, 16 healthy runs), written by four more authors once Z85-Z88 had been
    read (education and training; retail, e-commerce and hospitality; finance and insurance back office; software
    and IT operations) and scored unread: 50/64 (78 %) and 66 false alarms, 37 on healthy runs in 11 of 16, with
    the diagnosis the round began with; 50/64 and 63 (36 on 10 of 16) with the round's readings up to then, 50/64
    and 62 (35 on 10 of 16) at its end. Read in the round after (their authors, like Z85-Z88's, log work within
    the agent's remit as trigger=self: 36 of the 62 were HALO-A1 high)."""
    hit, total, alarms, notes = score(CODA)
    assert total == 64
    assert hit >= 50 and alarms <= 60, notes


GUIDE = HERE / "fixtures" / "traces_apart_z_guide"


def test_four_sets_written_with_the_guides_trigger_and_read():
    """Sets Z97-Z100 (48 traces, 64 problems, 16 healthy runs), written by four more authors given the guide's own
    definition of trigger (energy, utilities and telecoms field work; construction, property and facilities;
    insurance claims and customer support; household and personal finance) and scored unread: 38/64 (59 %) and 28
    false alarms, 18 on healthy runs in 11 of 16, with the diagnosis the round began with. Read since: 46/64 and
    21 (12 on 9 of 16)."""
    hit, total, alarms, notes = score(GUIDE)
    assert total == 64
    assert hit >= 46 and alarms <= 21, notes


GUIDE_TWO = HERE / "fixtures" / "traces_apart_z_guide_two"


def test_four_more_sets_written_with_the_guides_trigger_scored_unread_mid_round_then_read():
    """Sets Z101-Z104 (48 traces, 65 problems, 16 healthy runs), written by four more authors with the guide's
    trigger once Z97-Z100 had been read (public-sector casework; hospitality and events; IT helpdesk and SaaS
    administration; charities and volunteering) and scored unread: 42/65 (65 %) and 31 false alarms (19 on 9 of 16)
    with the diagnosis the round began with, 42/65 and 30 with the round's readings up to then. Read since: 43/65 and
    25 (13 on 8 of 16)."""
    hit, total, alarms, notes = score(GUIDE_TWO)
    assert total == 65
    assert hit >= 43 and alarms <= 25, notes


AGENTS = HERE / "fixtures" / "traces_apart_z_agents"


def test_four_sets_of_agent_systems_like_the_development_corpus_scored_unread_then_read():
    """Sets Z105-Z108 (48 traces, 64 problems, 16 healthy runs), written by four more authors with the guide's
    trigger, on the kinds of agent system the development corpus holds (coding agents and developer tooling;
    personal assistants; customer support and sales operations; research, data and analytics assistants). Scored
    unread: 50/64 (78 %) and 27 false alarms, 13 on 7 of 16 healthy runs, both with the diagnosis the round began
    with and after its first readings. Read since: 54/64 (84 %) and 8, none on a healthy run."""
    hit, total, alarms, notes = score(AGENTS)
    assert total == 64
    assert hit >= 54 and alarms <= 8, notes


UNSEEN = HERE / "fixtures" / "traces_apart_z_unseen"


def test_four_sets_written_with_the_guides_trigger_and_scored_unread():
    """Sets Z93-Z96 (48 traces, 65 problems, 16 healthy runs), written by four more authors who were given the
    guide's own definition of trigger (request when the user asked for it or set it up, self only when nothing
    the user asked or scheduled started it): healthcare administration; transport, travel and logistics; research
    labs and publishing; media, marketing and events. Scored unread: 47/65 (72 %) and 33 false alarms, 19 on
    healthy runs in 10 of 16, with the diagnosis the round began with; at the end of the next round 47/65 and 32
    (18 on 10 of 16). Nobody has read them: they measure the next round too."""
    hit, total, alarms, notes = score(UNSEEN)
    assert total == 65
    assert hit >= 47 and alarms <= 32, (hit, alarms)  # (the notes would show what is missed: keep them unread)


UNSEEN_TWO = HERE / "fixtures" / "traces_apart_z_unseen_two"


def test_four_more_sets_like_the_development_corpus_never_read():
    """Sets Z109-Z112 (48 traces, 64 problems, 16 healthy runs), written by four more authors with the guide's
    trigger once the round's readings were in: SRE, DevOps and cloud operations; e-commerce and marketplace
    operations; HR, recruiting and internal IT; finance back-office and accounting. Scored unread: 47/64 (73 %)
    and 18 false alarms, 7 on 6 of 16 healthy runs, with the diagnosis the round began with and with its last
    reading alike. Nobody has read them: they measure the next round."""
    hit, total, alarms, notes = score(UNSEEN_TWO)
    assert total == 64
    assert hit >= 47 and alarms <= 18, (hit, alarms)  # (the notes would show what is missed: keep them unread)
