"""The held-out consolidation world: facts with links that a consolidation pass is judged on.

Written for this course on 1 December 2026, before the consolidation check
(`memlib.course.checks.nb09_consolidation`) existed and before any setting of
`memlib.consolidate` was looked at against it, and committed on its own so the
history shows the order. Nobody tunes a rule, a threshold or a synonym table on
these facts: the development facts (`world_facts.py`, about Ines Halloran) are for
that. This world is about someone else entirely: Kofi Mensah, a ferry engineer in
Portsmouth, his family, his choir, his running and his flat.

Line format (one fact per line; blank lines and lines starting with '#' ignored):

    key@session[>old_key][~dup_key][!YYYY-MM-DD] | tags | text

- `@N`: the session (one a week from Monday 4 January 2027); facts of a session are
  written a few minutes apart, in the order they appear;
- `>old_key`: this fact makes `old_key` stale (a supersede link);
- `~dup_key`: this fact restates `dup_key` in other words (a near-duplicate link);
- `!date`: the fact itself says it stops holding on that day (a stated end).

Traps on purpose: restatements that share few words with the original, facts with
the same tags and sentence shape about different people, change words ("now",
"since") in facts that replace nothing, and a change that is announced without any
of the usual change words.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

FACTS = r"""
# --- who he is, work ---------------------------------------------------------
name@1 | identity | The user is Kofi Mensah; friends call him Kof, and he signs emails as K. Mensah.
job@1 | work | Kofi is a second engineer on the Solent Star, a car ferry between Portsmouth and Cherbourg.
rota@1 | work,schedule | Kofi works two weeks on board and then has two weeks at home.
rota_new@9>rota | work,schedule | The ferry company changed Kofi's rota to one week on board and one week at home from March.
chief@2 | work,people | Kofi's chief engineer is Maeve Dunleavy, who has sailed on the Solent Star for eleven years.
chief_new@14>chief | work,people | Maeve Dunleavy retired in April, so Kofi now answers to the new chief engineer, Bartek Nowak.
engine@2 | work | The Solent Star has four Wärtsilä medium-speed engines and Kofi looks after the port pair.
engine_dup@6~engine | work | Kofi is responsible for the two port-side Wärtsilä engines on the Solent Star.
ticket@3 | work | Kofi holds a second engineer certificate of competency and is studying for his chief's ticket.
exam@4!2027-03-18 | work,deadlines | Kofi's oral exam for the chief engineer certificate is on 18 March in Southampton.
exam_new@10>exam | work,deadlines | The examiner postponed Kofi's oral exam from 18 March to 22 April.
union@3 | work | Kofi is a member of the seafarers' union Nautilus and goes to the branch meeting each quarter.
drydock@5!2027-02-26 | work,events | The Solent Star is in dry dock in Falmouth until 26 February for hull painting.
uniform@5 | work | Kofi's boiler suit size is XL and his safety boots are size 46.
uniform_dup@11~uniform | work | Kofi wears size 46 safety boots and an XL boiler suit on board.
colleague_ana@2 | work,people | Ana Ruiz is the third engineer Kofi shares his watch with.
colleague_joe@2 | work,people | Joe Pemberton is the electro-technical officer Kofi calls about alarms.

# --- family -------------------------------------------------------------------
wife@1 | family,people | Kofi is married to Esi, a paediatric physiotherapist at Queen Alexandra Hospital.
sister@1 | family,people | Kofi's sister Abena lives in Leicester with her twin boys, Yaw and Kwame.
twins_age@3 | family | Yaw and Kwame turned four in January.
twins_age_dup@12~twins_age | family | Abena's twins had their fourth birthday at the start of the year.
father@2 | family,health | Kofi's father, Kwabena, lives in a care home in Havant after a stroke last year.
father_visits@2 | family,schedule | Kofi visits his father every Saturday afternoon when he is ashore.
father_home@15>father | family,health | Kofi's father has left the care home in Havant and lives with Abena in Leicester.
father_visits_new@15>father_visits | family,schedule | Since his father moved to Leicester, Kofi visits him once a month by train.
esi_shift@4 | family,schedule | Esi works long days on Mondays, Wednesdays and Fridays.
esi_course@7!2027-03-12 | family,events | Esi is on a hydrotherapy course in Bath every Friday until 12 March.
abena_job@4 | family,people | Abena teaches music at a secondary school in Leicester.
abena_job_dup@13~abena_job | family,people | Kofi's sister works as a music teacher at a Leicester secondary school.
anniversary@6 | family,dates | Kofi and Esi's wedding anniversary is on 9 September.
esi_bday@6 | family,dates | Esi's birthday is on 3 May and she likes a day out on the Isle of Wight.

# --- choir, running, hobbies ---------------------------------------------------
choir@1 | hobbies | Kofi sings bass in the Southsea Community Choir, which rehearses on Tuesday evenings.
choir_new@11>choir | hobbies | The Southsea Community Choir moved its rehearsals to Thursday evenings at St Jude's church.
choir_concert@8!2027-03-27 | hobbies,events | The choir's spring concert is on 27 March at the Guildhall.
choir_part@3 | hobbies | Kofi is learning the bass part of Fauré's Requiem for the spring concert.
choir_part_dup@7~choir_part | hobbies | For the spring concert Kofi has to learn the Fauré Requiem, bass line.
running@2 | hobbies,health | Kofi runs the seafront from Southsea Castle to Eastney three mornings a week.
marathon@4 | hobbies,events | Kofi has entered the Portsmouth half marathon in October.
marathon_new@16>marathon | hobbies,events | Kofi switched his entry from the Portsmouth half to the full Brighton Marathon next April.
running_shoes@5 | hobbies | Kofi runs in Brooks Ghost shoes and replaces them every 600 kilometres.
running_shoes_dup@14~running_shoes | hobbies | Every 600 km Kofi buys a new pair of Brooks Ghost running shoes.
parkrun@6 | hobbies,schedule | On Saturdays ashore Kofi does the Southsea parkrun before visiting his father.
portuguese@3 | hobbies,learning | Kofi is learning Portuguese with an app so he can talk to the Brazilian crew.
portuguese_class@10>portuguese | hobbies,learning | Kofi gave up the Portuguese app and now takes an evening class at the college.
chess@5 | hobbies | Kofi plays online chess on the ship's wifi and is rated about 1500.

# --- home ------------------------------------------------------------------------
flat@1 | home,places | Kofi and Esi rent a two-bedroom flat on Albert Road in Southsea.
flat_new@18>flat | home,places | Kofi and Esi bought a terraced house in Milton and moved out of Albert Road in May.
landlord@3 | home,people | Their landlord, Mr Okafor, fixes things quickly but hates being texted.
boiler@7!2027-02-20 | home,reminders | The boiler engineer comes to service the flat's boiler on 20 February.
bins@4 | home,reminders | The bins on Albert Road go out on Sunday night.
bins_dup@9~bins | home,reminders | Sunday night is bin night on Albert Road.
parking@5 | home | Kofi has a residents' parking permit for zone MD.
parking_new@19>parking | home | The Milton house has a driveway, so Kofi cancelled his zone MD parking permit.
internet@6 | home,tools | The flat's broadband is a 500 megabit fibre line from a local provider called Solent Fibre.

# --- health, food ---------------------------------------------------------------
allergy@2 | health | Kofi is allergic to shellfish; prawns give him hives.
allergy_dup@8~allergy | health | Shellfish, prawns especially, bring Kofi out in hives.
knee@8 | health | Kofi's left knee aches after long runs and he sees a physio at the Mountbatten Centre.
knee_new@17>knee | health | After the physio's exercises Kofi's knee no longer aches, and the sessions ended.
dentist@6!2027-03-04 | health,reminders | Kofi has a dentist appointment on 4 March at 8:40.
food_fav@3 | food,preferences | Kofi's favourite dish is his mother's light soup with fufu.
food_fav_dup@15~food_fav | food,preferences | Nothing beats the light soup and fufu his mother used to cook, Kofi says.
coffee@4 | food,preferences | Kofi drinks his coffee black, one sugar.
coffee_new@13>coffee | food,preferences | On the dentist's advice Kofi dropped the sugar: black coffee, no sugar.

# --- pets, travel, money --------------------------------------------------------
parrot@2 | pets | Kofi and Esi have an African grey parrot called Captain who whistles the shipping forecast.
parrot_vet@9!2027-03-09 | pets,reminders | Captain's beak and claw trim at the vet is booked for 9 March.
parrot_dup@16~parrot | pets | Captain, their grey parrot, can whistle the tune of the shipping forecast.
holiday@7 | travel | Kofi and Esi plan a trip to Accra in August to see cousins.
holiday_new@17>holiday | travel | The Accra trip moved from August to December, when Esi can take three weeks off.
passport@8!2027-04-30 | travel,deadlines | Kofi's passport runs out on 30 April, so he must renew it before the Accra trip.
savings@5 | finance | Kofi puts 300 pounds a month into a savings account for a house deposit.
pension@6 | finance | Kofi pays into the Merchant Navy Officers pension scheme.
bank@7 | finance | Kofi banks with Nationwide and uses Monzo for spending on board.

# --- the same shape, different people (no link on purpose) ---------------------
ana_bday@9 | people,dates | Ana Ruiz's birthday is on 14 July and she likes chocolate cake.
joe_bday@12 | people,dates | Joe Pemberton's birthday is on 2 November and he likes lemon cake.
yaw_school@13 | family | Yaw has started nursery on Mondays and Thursdays.
kwame_school@13 | family | Kwame has started nursery on Tuesdays and Fridays.
ana_watch@14 | work,people | Ana Ruiz now keeps the midnight to four watch.
joe_watch@14 | work,people | Joe Pemberton now keeps the eight to twelve watch.
"""

HEADER = re.compile(r"^(?P<key>\w+)@(?P<session>\d+)(?:>(?P<old>\w+))?(?:~(?P<dup>\w+))?(?:!(?P<end>\d{4}-\d{2}-\d{2}))?$")
FIRST_SESSION = datetime(2027, 1, 4, 19, 0)


def parse() -> list[dict]:
    """The facts as rows, oldest first, with ids hfact-0001 ... and links by id."""
    entries = []
    for line in FACTS.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, tags, text = (part.strip() for part in line.split("|"))
        match = HEADER.match(head)
        if match is None:
            raise ValueError(f"bad fact header {head!r}")
        entries.append((match, tuple(t.strip() for t in tags.split(",")), text))
    # Chronological ids: by session, then by order of writing inside the session.
    ordered = sorted(enumerate(entries), key=lambda item: (int(item[1][0]["session"]), item[0]))
    ids, turns, rows = {}, {}, []
    for n, (_, (match, tags, text)) in enumerate(ordered, start=1):
        ids[match["key"]] = f"hfact-{n:04d}"
    for _, (match, tags, text) in ordered:
        session = int(match["session"])
        turn = turns[session] = turns.get(session, 0) + 1
        created = FIRST_SESSION + timedelta(weeks=session - 1, minutes=7 * turn)
        rows.append({
            "id": ids[match["key"]], "text": text, "tags": list(tags), "session_id": f"h{session:02d}",
            "turn_id": turn, "source_url": None, "created_at": created.isoformat(), "trust": "trusted",
            "supersedes": ids[match["old"]] if match["old"] else None,
            "duplicate_of": ids[match["dup"]] if match["dup"] else None,
            "ends_at": match["end"],
        })
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        for field in ("supersedes", "duplicate_of"):
            if r[field] and by_id[r[field]]["created_at"] >= r["created_at"]:
                raise ValueError(f"{r['id']} {field} {r[field]}, which is not older")
    return rows


def write(path: Path) -> int:
    rows = parse()
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


if __name__ == "__main__":
    print(write(Path(__file__).with_name("consolidation_heldout.jsonl")), "held-out facts written")
