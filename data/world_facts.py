"""Hand-written archival facts about one user, Ines Halloran, for the course datasets.

This file is content, not code: `data/generate.py` parses it into facts.jsonl.
It deliberately holds no logic beyond the line format described below.

Line format (one fact per line, blank lines and lines starting with '#' ignored):

    key[@session][>old_key][~dup_key] | tags (comma separated) | text [| source]

- `@N` pins the fact to session N (otherwise the generator picks one, seeded);
- `>old_key` says this fact supersedes `old_key` (memory rot: the old one is stale);
- `~dup_key` says this fact is a near-duplicate restatement of `dup_key`;
- `source` is a document the fact was copied from (wiki page, email, web page);
  without it the fact came from the chat itself.
"""

FACTS = r"""
# --- who she is, work --------------------------------------------------------
name@1 | identity | The user's name is Ines Halloran; she prefers to be called Ines, never "Nessa".
age@8 | identity | Ines turned 34 in February and jokes that she is now officially old enough to own a label maker.
job@1 | work | Ines works as a senior data engineer at Kestrel Freight, a logistics company that moves pallets across northern England.
team@1 | work | Ines sits on the Routing Data team, the group that owns the pipelines feeding the route planner.
manager@2 | work,people | Ines's manager is Dev Anand; she has a one-to-one with him every other Thursday.
manager_new@17>manager | work,people | Dev Anand moved to the platform group, so Ines now reports to Mirela Costa.
teammate_olu | work,people | Olu Adebayo is the analytics engineer on Ines's team and the person she pairs with most often.
teammate_hana | work,people | Hana Fujimoto joined the Routing Data team as a graduate in January and Ines is her mentor.
teammate_rory | work,people | Rory Whitcombe, the team's SRE, is the one to ask about Kafka consumer lag.
teammate_greta | work,people | Greta Lindqvist is the product manager for the route planner and sets the team's quarterly goals.
office | work,places | Kestrel's office is on Wellington Street in Leeds, a ten-minute walk from the station, in a converted wool warehouse with a roof terrace.
wfh | work,schedule | Ines works from home on Mondays and Fridays and goes into the office Tuesday to Thursday.
hours | work,schedule | Ines starts work at 8:30 so she can leave at 4:30 for the school pickup.
oncall@3 | work,schedule | Ines is on the pager rota one week in six; her next on-call week starts on 9 February.
oncall_new@9>oncall | work,schedule | The pager rota changed to one week in eight after Rory joined, and Ines's next on-call week begins on 16 March.
standup | work,meetings | The Routing Data standup is at 9:45 every weekday in the huddle room called Larch.
retro | work,meetings | The team holds its retrospective every second Friday, always over video because half the team is remote that day, and Greta keeps the notes.
slack_channel | work,tools | The team channel on Slack is #routing-data; incidents go to #routing-incidents instead.
employee_since | work | Ines joined Kestrel Freight in September 2021 after four years at an energy start-up in Bristol.
prev_job | work | Before Kestrel, Ines built meter-reading pipelines for a small energy company called Voltwise.
promotion@15 | work | Ines was promoted to senior data engineer in the spring review; the title change took effect on 1 April.
review_cycle | work | Kestrel runs performance reviews twice a year, in April and October.
budget_cloud | work,projects | The Routing Data team's cloud budget is capped at 18,000 pounds per month.
vendor_snowflake | work,tools | Kestrel's warehouse is on Snowflake, in the EU-West region, on a three-year contract that comes up for renewal in 2027.
guild | work,people | Ines runs the monthly data engineering guild, a lunchtime talk session open to the whole company.
guild_talk@8 | work,events | At the February guild Ines gave a talk titled "Idempotent by default" about safe pipeline retries.
interview_panel | work | Ines sits on interview panels for data engineering candidates, usually doing the system design round.
laptop | work,tools | Ines's work laptop is a 14-inch ThinkPad running Fedora.
laptop_new@19>laptop | work,tools | IT replaced Ines's ThinkPad with a 16-inch MacBook Pro after the ThinkPad's hinge cracked.
security_key | work,tools | Ines keeps a YubiKey on her lanyard because Kestrel requires hardware keys for production access, and a spare one locked in her desk drawer.

# --- projects ---------------------------------------------------------------
heron | projects | Project Heron moves the warehouse scan feeds from nightly batch files to a streaming pipeline on Kafka.
heron_lead | projects,people | Ines is the technical lead for Project Heron; Greta is the sponsor on the product side.
heron_deadline@2 | projects,deadlines | Project Heron has to go live by 14 March so the planner can use same-day scans.
heron_deadline_new@10>heron_deadline | projects,deadlines | Heron's go-live slipped from 14 March to 2 April because the depot scanners needed a firmware update.
heron_depots | projects | Heron starts with three depots, Wakefield, Doncaster and Hull, before rolling out to all eleven.
heron_tech | projects,tools | Heron consumes scanner events from Kafka with Flink and writes them to Snowflake through Snowpipe Streaming.
heron_risk | projects | The biggest risk on Heron is duplicate scan events when a depot scanner reconnects after going offline.
heron_dedup | projects | To handle duplicates, Heron keys every scan on depot, scanner and sequence number and drops repeats within 24 hours.
heron_launch_done@15 | projects | Heron went live at the first three depots on 2 April without a rollback.
heron_rollout@20 | projects,deadlines | The remaining eight depots join Heron in waves, the last one due on 30 June.
heron_name | projects | The Heron project name comes from the grey herons Ines sees on the canal on her walk to the station.
lantern | projects | Lantern is the operations dashboard Ines's team maintains; depot managers check it every morning.
lantern_stack | projects,tools | Lantern is built with Streamlit on top of dbt models and refreshes every fifteen minutes.
lantern_stack_new@18>lantern_stack | projects,tools | Lantern was rebuilt in Evidence, replacing Streamlit, because the depot managers wanted printable reports.
lantern_owner | projects,people | Olu owns the Lantern dbt models and reviews every change to them.
lantern_users | projects | About 140 people use Lantern each week, mostly depot managers and the night planning desk, with a spike on Monday mornings.
tern | projects | Tern is Ines's side project: data quality checks that page the team when a feed goes stale.
tern_threshold | projects | Tern raises an alert when a feed has not delivered rows for 45 minutes during working hours.
tern_threshold_new@21>tern_threshold | projects | After too many false alarms, Tern's staleness threshold was raised to 90 minutes.
tern_lang | projects,tools | Tern is written in Go because Ines wanted a single static binary for the on-call hosts.
airflow | projects,tools | The Routing Data team schedules its batch jobs with Airflow 2, on a single scheduler that Rory patches by hand.
dagster@14>airflow | projects,tools | The team finished moving its batch jobs from Airflow to Dagster in March, after a month of running both side by side.
dbt_version | projects,tools | The team's dbt project is pinned to dbt-core 1.7 until the Snowflake adapter catches up.
okr_q1 | projects,work | The team's first-quarter objective is to cut the planner's data delay from 12 hours to 15 minutes.
okr_q2@16 | projects,work | For the second quarter Greta set the objective of reaching 99.5 percent scan completeness across all depots.
migration_doc | projects | Ines wrote the Heron design document; it lives on the wiki under Routing Data, Designs, Heron v3. | https://wiki.kestrel.example/routing-data/designs/heron-v3
postmortem@11 | projects,incidents | On 3 March a schema change in the Hull scanner feed broke Heron's staging pipeline for six hours.
postmortem_fix@11 | projects,incidents | The fix after the Hull incident was to add schema-contract tests that run before every deploy, so a producer cannot rename a field without the consumers knowing.
incident_pager@13 | projects,incidents | Ines was paged at 2 a.m. on 19 March because Snowpipe credentials had expired.
credentials_rotation | projects,tools | Service credentials at Kestrel expire every 90 days and must be rotated through Vault, which emails the owning team a week before the deadline.
cost_saving@16 | projects | Switching Lantern's refresh from every five minutes to every fifteen cut the warehouse bill by about 2,300 pounds a month.
hackathon@12 | projects,events | At the March hackathon Ines and Hana built a prototype that predicts depot congestion from scan rates, trained on two years of Wakefield data.
hackathon_prize@12 | projects,events | The congestion prototype won second prize, a voucher for the local bookshop, which Ines spent on picture books about fossils.
conference_talk@6 | projects,events | Ines submitted a talk about Heron to PyData Lisbon.
conference_accept@13 | projects,events | Ines's Heron talk was accepted at PyData Lisbon; she speaks on the second day.

# --- tools and habits at the keyboard ----------------------------------------
editor | tools | Ines writes code in Neovim with a config she has kept in a dotfiles repository since 2017; she tried VS Code for a month during a pairing experiment and went back.
editor_plugin | tools | Her favourite Neovim plugin is Telescope, which she uses to jump between files.
shell | tools | Ines uses fish as her shell and keeps a dozen abbreviations for git.
python_version | tools | The team's Python services run on Python 3.11.
keyboard | tools | Ines types on a split ergonomic keyboard, a Moonlander, since her wrist started aching in 2023.
notes_app | tools | Ines keeps her work notes in Obsidian, one daily note per day, synced through a private git repository rather than the paid sync service.
password_manager | tools | Ines uses Bitwarden for personal passwords and the company's 1Password vault for work.
sql_style | tools,preferences | Ines insists on lowercase SQL keywords and leading commas in code review.
git_habit | tools,preferences | Ines squashes her commits before merging and writes commit messages in the imperative mood.
terminal_font | tools,preferences | Her terminal font is JetBrains Mono at size 13.
calendar_tool | tools | Ines blocks focus time in Google Calendar every morning from 9 to 11, except during standup.
phone | tools | Ines's phone is a Pixel 8.
headphones | tools | She wears Sony noise-cancelling headphones in the office to get through open-plan noise.
linter | tools | The team's Python code is linted with ruff and type-checked with mypy in strict mode.
ci_tool | tools | The Routing Data repositories build on GitHub Actions.

# --- family -----------------------------------------------------------------
partner@1 | family,people | Ines lives with her partner Sam Okoro, who works night shifts as an intensive-care nurse at Leeds General Infirmary.
daughter@1 | family,people | Ines and Sam have a daughter, Ada, who is six.
daughter_school | family | Ada goes to Meanwood Primary and is in Year 2.
daughter_school_new@22>daughter_school | family | Ada will start at Headingley Primary in September after the move.
daughter_bday | family,dates | Ada's birthday is on 11 June.
daughter_party@21 | family,events | Ada's birthday party is booked at the trampoline park on Kirkstall Road for Saturday 13 June.
daughter_hobby | family | Ada is obsessed with dinosaurs and wants to be a palaeontologist.
daughter_swim | family,schedule | Ada has swimming lessons on Wednesday evenings at the Scott Hall leisure centre.
daughter_allergy | family,health | Ada is allergic to peanuts and carries an auto-injector at school; her class teacher and the dinner staff have a written care plan.
mother | family,people | Ines's mother, Brigid, lives in Galway and calls every Sunday evening.
mother_bday | family,dates | Brigid's birthday is on 28 October, and she always asks for nothing and is delighted with flowers.
mother_health@7 | family,health | Brigid had a hip replacement in February and is recovering at home.
brother | family,people | Ines's younger brother Cian is a chef in Dublin.
brother_restaurant@18 | family | Cian is opening his own restaurant in Stoneybatter in the autumn.
brother_wedding@9 | family,events | Cian is marrying his partner Róisín on 22 August in Connemara.
sam_parents | family,people | Sam's parents live in Manchester and look after Ada one weekend a month.
sam_shift | family,schedule | Sam works three twelve-hour night shifts a week, usually Tuesday to Thursday.
anniversary | family,dates | Ines and Sam's anniversary is on 4 July; they met at a friend's barbecue in 2014.
father | family,people | Ines's father died in 2019; she still keeps his old fountain pen on her desk.
niece | family,people | Ines has a niece, Orla, Cian's stepdaughter, who is nine.
godmother | family,people | Ines is godmother to her friend Priya's son, Arjun.
friend_priya | people | Priya Shah is Ines's oldest friend from university; they studied maths together in Bristol.
friend_tom | people | Tom Brennan, a friend from the bouldering wall, is the one who got Ines into the sport by dragging her to a beginners' evening in 2022.

# --- pets -------------------------------------------------------------------
dog@1 | pets,family | The family dog is Biscuit, a three-year-old beagle.
dog_vet | pets | Biscuit's vet is the Moortown Veterinary Centre.
dog_food | pets | Biscuit eats a grain-free salmon kibble because chicken upsets his stomach.
dog_walker | pets,schedule | A dog walker named Kasia takes Biscuit out at noon on office days, for an hour around Meanwood Park, and sends a photo afterwards.
dog_vaccine@10 | pets,deadlines | Biscuit's booster vaccination is due on 20 May.
cat_none | pets | Ines would like a cat but Sam is allergic to cats.
fish | pets | Ada has a goldfish called Professor Bubbles.

# --- home and places --------------------------------------------------------
home@1 | home,places | Ines lives in a two-bedroom terrace in Chapel Allerton, Leeds.
home_new@20>home | home,places | Ines and Sam moved to a three-bedroom semi in Headingley at the end of May.
home_buy@12 | home | Ines and Sam had an offer accepted on a house in Headingley in March.
mortgage@13 | home,finance | The mortgage on the new house is a five-year fixed rate with Nationwide at 4.1 percent, arranged through a broker Priya recommended.
commute | home,places | Ines takes the number 7 bus to the office; the ride takes about 25 minutes.
commute_new@21>commute | home,places | Since the move, Ines cycles to the office along the canal towpath; it takes about 20 minutes.
allotment | home,hobbies | Ines rents an allotment plot, number 14, at the Potternewton allotments.
allotment_crops | home,hobbies | On the allotment she grows runner beans, courgettes, garlic and far too much chard, which ends up in every soup from July to October.
allotment_give_up@23>allotment | home,hobbies | Ines gave up her Potternewton allotment after the move because it was too far from Headingley.
garden_new@23 | home,hobbies | The new house has a long back garden, and Ines plans raised beds for vegetables.
gym | places,hobbies | Ines climbs at the Depot bouldering wall in Leeds on Tuesday and Thursday evenings, and Tom usually drives them both.
cafe | places,preferences | Her favourite café is Laynes Espresso near Leeds station.
pub | places | The team's usual pub after retros is the Lamb and Flag near Leeds Minster.
library | places | Ines takes Ada to the Central Library on Saturday mornings for story time.
hometown | identity,places | Ines grew up in Salthill, on the edge of Galway.
university | identity,places | Ines studied mathematics at the University of Bristol and stayed there for her first job.
previous_city | home,places | Before Leeds, Ines lived in Bristol for nine years.
neighbour | home,people | The next-door neighbour in Chapel Allerton, Mr Patel, keeps a spare key.
boiler@5 | home | The boiler in the Chapel Allerton house is serviced every January by Yorkshire Heat.
landlord | home,people | The landlord of the Chapel Allerton terrace is a letting agent called Hollis and Page.

# --- preferences ------------------------------------------------------------
diet@1 | preferences,food | Ines is vegetarian and has been since she was fifteen.
diet_dup@14~diet | preferences,food | Ines doesn't eat meat; she has been a vegetarian since her teens.
coffee | preferences,food | Ines drinks a flat white with oat milk and no sugar.
coffee_dup@19~coffee | preferences,food | Ines's usual coffee order is an oat flat white, no sugar.
tea | preferences,food | In the afternoon Ines switches to peppermint tea because caffeine after 2 p.m. ruins her sleep.
favourite_food | preferences,food | Her favourite dish is her mother's colcannon, and the best restaurant meal she ever had was dosa in Bradford.
dislike_food | preferences,food | Ines cannot stand coriander; it tastes like soap to her.
dislike_food_dup@16~dislike_food | preferences,food | Ines hates coriander, says it tastes of soap; leave it out of any recipe.
meetings_pref | preferences,work | Ines dislikes meetings before 10 a.m. and prefers to handle updates asynchronously in writing.
meetings_pref_dup@11~meetings_pref | preferences,work | Ines would rather not have meetings before ten in the morning; she likes written async updates.
comm_pref | preferences | Ines wants answers short and direct, with the recommendation first and the reasoning after.
music | preferences,hobbies | Ines listens to Irish trad and ambient electronica while coding; Aphex Twin is a favourite.
books | preferences,hobbies | Her favourite novelist is Ursula K. Le Guin; she rereads The Dispossessed every few years.
books_current@15 | hobbies | Ines is currently reading Piranesi by Susanna Clarke on the bus.
podcast | preferences,hobbies | Her favourite podcast is a history show about medieval Ireland.
tv@24 | preferences | Ines and Sam are slowly watching The Bear, one episode a week.
colour | preferences | Ines's favourite colour is a dark teal green.
weather | preferences | Ines loves cold, bright winter days and hates muggy summers.
fonts_pref | preferences | For slides Ines uses the font Inter and never Comic Sans.
holiday_pref | preferences,travel | Ines prefers walking holidays to beach holidays.
wine | preferences,food | Ines rarely drinks alcohol; when she does it is a dry cider.
chocolate | preferences,food | Ines's weakness is dark chocolate with sea salt.
breakfast | preferences,food | Ines has porridge with blueberries most mornings.
sport_team | preferences | Ines follows Galway United and checks the scores on Friday nights.
emoji | preferences,work | Ines finds heavy emoji use in work chat distracting.
name_pronunciation | identity | Ines pronounces her name "EE-ness", and people often get it wrong.

# --- health -----------------------------------------------------------------
allergy@2 | health | Ines is allergic to penicillin; it gives her hives.
allergy_dup@13~allergy | health | Penicillin allergy: Ines breaks out in hives if she takes it.
gp | health | Ines's GP practice is the Chapel Allerton Medical Centre.
gp_new@22>gp | health | Ines registered with the Kirkstall Lane surgery after moving to Headingley.
physio@4 | health | Ines sees a physiotherapist, Jo, for a sore right shoulder from climbing.
physio_done@14 | health | Physio for the shoulder finished in March; Jo signed her off with a set of band exercises.
running | health,hobbies | Ines runs 5 km on Saturday mornings at the Roundhay parkrun.
running_pb@17 | health,hobbies | Ines set a personal best of 24 minutes 10 seconds at Roundhay parkrun in April, on a cold morning with Sam and Ada cheering at the finish.
sleep | health | Ines aims for seven and a half hours of sleep and goes to bed by 10:30.
glasses | health | Ines wears glasses for distance and has contact lenses for climbing.
dentist@8 | health,deadlines | Ines has a dentist appointment on 4 March at 8 a.m. at Smile Leeds.
dentist_new@9>dentist | health,deadlines | The dentist moved Ines's appointment from 4 March to 11 March at 5:15 p.m.
blood_donor | health | Ines gives blood three times a year at the donor centre on Bond Street; her type is O negative, so the service texts her whenever stocks run low.
migraines | health | Ines gets migraines when she skips lunch, so she eats at 12:30 without fail.

# --- hobbies ----------------------------------------------------------------
bouldering | hobbies | Ines climbs grade 6A boulder problems and is working on her first 6B.
bouldering_grade@19>bouldering | hobbies | Ines sent her first 6B at the Depot in April, after months of failing on the same overhang, and now projects 6B+ problems.
cello | hobbies | Ines plays the cello in an amateur orchestra, the Leeds Community Sinfonia, where she has sat in the back row of the section since 2022.
cello_concert@10 | hobbies,events | The Sinfonia's spring concert, with Dvořák's eighth symphony, is on 28 March at Leeds Town Hall.
cello_rehearsal | hobbies,schedule | Orchestra rehearsals are on Monday evenings in a church hall in Headingley, from half past seven until ten, with a tea break at half time.
sourdough | hobbies,food | Ines bakes sourdough every weekend; her starter is called Gerald.
sourdough_dup@18~sourdough | hobbies,food | Weekend baking is Ines's ritual: a sourdough loaf from her starter, Gerald.
chess | hobbies | Ines plays correspondence chess online and is rated about 1700.
crossword | hobbies | Ines does the Guardian cryptic crossword with Sam on Saturdays.
knitting | hobbies | Ines is knitting Ada a dinosaur jumper and is stuck on the spikes.
photography | hobbies | Ines takes photos of herons on the Leeds-Liverpool canal with an old Fujifilm camera she bought second hand in Bristol, and prints the best ones.
languages | hobbies,identity | Ines speaks English and Irish and is learning Portuguese on Duolingo for the Lisbon trip, mostly on the bus in the morning.
languages_streak@16 | hobbies | Ines's Duolingo Portuguese streak has reached 120 days.
board_games | hobbies | Ines's favourite board game is Wingspan, though Ada prefers Outfoxed and usually wins it by guessing the fox's identity early.
volunteering | hobbies,people | Ines volunteers once a month at the Leeds Code Club in the Central Library, teaching children aged eight to twelve to make games in Scratch.

# --- travel and events ------------------------------------------------------
lisbon_trip@13 | travel,events | Ines will fly to Lisbon on 18 May for PyData Lisbon and stay four nights.
lisbon_hotel@15 | travel | Ines booked a small hotel in Alfama, the Casa do Largo, for the Lisbon conference.
lisbon_flight@15 | travel | Her Lisbon flight leaves from Manchester at 6:40 in the morning.
lisbon_flight_new@18>lisbon_flight | travel | The airline moved Ines's Lisbon flight to 11:05 a.m. from Leeds Bradford instead of Manchester.
christmas | travel,family | The family spends Christmas in Galway with Brigid every year.
easter@16 | travel,family | At Easter the family went camping in the Lake District near Keswick.
summer_holiday@20 | travel,family | The summer holiday is a cottage in Northumberland near Bamburgh, booked for the first week of August, with a day trip to Holy Island planned.
passport@6 | travel,finance,deadlines | Ines's passport expires in July, so she needs to renew it before Lisbon.
passport_done@12 | travel,finance | Ines's renewed passport arrived in March, valid until 2036.
ada_passport | travel,family | Ada's passport was renewed last year and is valid until 2030.
wedding_travel@19 | travel,family | For Cian's wedding the family is taking the ferry from Holyhead to Dublin on 20 August.
conference_budget | travel,work | Kestrel covers up to 1,200 pounds of travel for conference speakers, booked through the company portal at least three weeks ahead, with receipts uploaded within a month.
visa_none | travel | Ines has an Irish passport, so she needs no visa anywhere in the EU.
festival@17 | travel,events | Ines bought tickets for Green Man festival in Wales in August, on the weekend before Cian's wedding.
berlin_old@3 | travel,events | Ines is considering a data conference in Berlin in June.
berlin_cancel@10>berlin_old | travel,events | Ines decided not to go to the Berlin conference in June; one trip abroad in spring is enough.

# --- money and admin --------------------------------------------------------
car | finance,home | The family car is a 2017 Toyota Auris hybrid.
car_sold@21>car | finance,home | Ines and Sam sold the Auris and joined a car club after moving to Headingley.
car_mot | finance,deadlines | The Auris's MOT is due every November.
insurance@4 | finance,deadlines | The home insurance renews on 1 March with Direct Line.
insurance_new@20>insurance | finance,deadlines | After the move, the home insurance is with Aviva and renews on 28 May; the policy number is in the filing cabinet under House.
bank | finance | Ines banks with Starling and keeps her savings in a Nationwide ISA.
pension | finance,work | Ines pays 6 percent of her salary into the company pension and Kestrel matches it.
tax_return@2 | finance,deadlines | Ines has to file a self-assessment tax return by 31 January because of her freelance teaching income.
tax_return_done@4 | finance | Ines filed her tax return on 27 January, four days before the deadline.
council_tax@21 | finance,home | Council tax in Headingley is paid by direct debit on the 1st of each month.
energy | finance,home | The household energy supplier is Octopus, on a tariff that is cheap overnight.
childcare | finance,family | The after-school club at Ada's school costs 14 pounds a day and she goes three days a week, on the days Sam sleeps after a night shift.
charity | finance | Ines gives a monthly donation to the RNLI, the lifeboat charity.
subscription | finance | Ines pays for a Guardian subscription mainly for the crossword.
freelance | work,finance | Ines teaches an evening SQL course for Leeds City College twice a year.
salary_day | finance,work | Kestrel pays salaries on the 25th of each month.

# --- reminders and deadlines (things the agent should surface) -------------
remind_plants | reminders,home | Ines asked to be reminded to water the plants on Sunday evenings.
remind_bins | reminders,home | The recycling bins go out on Tuesday night for Wednesday collection.
remind_bins_new@21>remind_bins | reminders,home | In Headingley the bins go out on Sunday night for Monday collection.
remind_mum | reminders,family | Ines wants a reminder to call her mother on the 1st of each month about the bills they share.
remind_review@15 | reminders,work,deadlines | Ines's self-review for the April cycle is due on 10 April.
remind_visa_hana@16 | reminders,work | Ines promised to write Hana a reference letter by the end of April.
remind_costume@9 | reminders,family | Ada needs a costume for World Book Day on 5 March; she wants to go as a triceratops.
remind_gift_mum@23 | reminders,family | Ines wants to order flowers for her mother's birthday a week in advance.
remind_library | reminders | Ines has three library books due back on 12 May.
remind_dentist_ada@16 | reminders,family,health | Ada's check-up at the dentist is on 7 May after school.
remind_slides@14 | reminders,work,deadlines | The Lisbon slides have to be sent to the conference organisers by 8 May as a PDF, so they can be checked for accessibility.
remind_expenses@24 | reminders,work | Ines forgets to submit expenses; she wants a nudge on the last Friday of each month.
remind_plants_dup@10~remind_plants | reminders,home | Every Sunday evening: water the houseplants (Ines asked for this reminder).

# --- other near-duplicates and notes from documents ------------------------
heron_dup@16~heron | projects | Heron replaces the nightly batch files from the warehouse scanners with a Kafka-based streaming pipeline.
lantern_dup@21~lantern | projects | Depot managers open the Lantern operations dashboard first thing every morning.
dog_dup@13~dog | pets,family | Biscuit the beagle is three years old and belongs to the whole family.
partner_dup@8~partner | family,people | Sam, Ines's partner, is an ICU nurse on nights at the LGI.
standup_dup@17~standup | work,meetings | Daily standup: 9:45 in the Larch huddle room.
mother_dup@15~mother | family,people | Brigid, Ines's mum, rings from Galway every Sunday night.
tern_dup@22~tern | projects | Tern checks data freshness and pages the Routing Data team when a feed stops delivering.
heron_depots_dup@12~heron_depots | projects | The first Heron depots are Wakefield, Doncaster and Hull; eight more follow later.
onboarding_doc | work | New starters on Routing Data follow the onboarding checklist, which includes getting a YubiKey and Snowflake access. | https://wiki.kestrel.example/routing-data/onboarding
runbook_lag | work,incidents | The Kafka lag runbook says to check consumer group heron-scans first and restart Flink only as a last resort. | https://wiki.kestrel.example/routing-data/runbooks/kafka-lag
runbook_snowpipe | work,incidents | The Snowpipe runbook lists credential expiry as the most common cause of ingestion stopping. | https://wiki.kestrel.example/routing-data/runbooks/snowpipe
pydata_schedule@17 | events,travel | The PyData Lisbon programme puts Ines's talk at 11:30 on 20 May in room B. | https://pydata.example/lisbon/2026/schedule
pydata_venue@17 | events,travel | PyData Lisbon takes place at the Instituto Superior Técnico campus. | https://pydata.example/lisbon/2026/venue
recipe_colcannon | food,family | Brigid's colcannon recipe uses savoy cabbage, spring onions and a lot of butter. | https://recipes.example/colcannon-brigid
school_letter@18 | family | A letter from Meanwood Primary says the summer term ends on 22 July. | https://meanwood-primary.example/letters/summer-term
vet_letter@10 | pets | The vet's reminder letter says Biscuit also needs a worming tablet every three months. | https://moortown-vets.example/reminders
orchestra_site | hobbies,events | The Sinfonia's website lists rehearsal dates and asks players to arrive 15 minutes early. | https://leeds-sinfonia.example/rehearsals
kafka_blog | tools,projects | A blog post Ines bookmarked argues that exactly-once delivery in Kafka still needs idempotent consumers. | https://streaming-notes.example/exactly-once
flink_doc | tools,projects | According to the Flink docs Ines saved, checkpoints every 60 seconds are a sensible default for Heron's volumes. | https://flink-docs.example/checkpointing

# --- facts that share words with others (distractors) ------------------------
dist_heron_bird | hobbies | The grey heron Ines photographed on the canal in January stood perfectly still for twenty minutes.
dist_lisbon_food | travel,food | Ines has a list of vegetarian restaurants in Lisbon that Priya recommended.
dist_deadline_team | work,deadlines | The team's deadline for choosing conference speakers for the guild's summer session is 30 April.
dist_dog_friend | pets,people | Tom's dog is a collie called Pixel who comes to the climbing gym car park.
dist_mother_sam | family,people | Sam's mother, Ngozi, is a retired maths teacher who loves crosswords.
dist_birthday_olu | people,dates | Olu's birthday is on 2 June and the team usually buys him a cake.
dist_allergy_sam | health,family | Sam is allergic to cats and to dust mites.
dist_office_hull | work,places | The Hull depot's office is next to the ferry terminal.
dist_school_run | family,schedule | Sam does the school run on the days after his night shifts end.
dist_coffee_machine | work | The coffee machine in the Kestrel office broke in February and was replaced with a bean-to-cup model.
dist_train | travel | Ines took the train to London in January for a one-day Snowflake workshop.
dist_manager_sam | family,work | Sam's ward manager, Fiona, approved his leave for Cian's wedding after he swapped two night shifts with a colleague.
dist_book_ada | family,hobbies | Ada's favourite book is about a stegosaurus who learns to swim, and she makes whoever does bedtime read it twice.
dist_music_ada | family | Ada is learning the recorder and practises Hot Cross Buns before breakfast.
dist_run_team | work,hobbies | Several people from Kestrel ran the Leeds half marathon for charity, but Ines only volunteered at a water station.
dist_heron_meeting | projects,meetings | The Heron steering meeting happens every Wednesday at 2 p.m., thirty minutes with Greta, Ines and the depot operations lead.
dist_lantern_bug | projects | A bug in Lantern once showed Doncaster's pallets twice because of a join on the wrong key, and the night desk planned two extra trucks before anyone noticed.
dist_cello_teacher | hobbies,people | Ines's first cello teacher in Galway was a nun called Sister Agnes, who taught her scales on a borrowed half-size instrument.
dist_galway_weather | places | Galway in October is usually wet and windy.
dist_vegetarian_ada | family,food | Ada is not vegetarian; she loves fish fingers, and Sam cooks them for her on the nights Ines is at rehearsal.
dist_kasia | people,pets | Kasia, the dog walker, also walks the neighbour's spaniel.
dist_python_course | work | Hana is taking an online course on advanced Python testing.
dist_bus_strike@7 | places | A bus strike in February meant Ines worked from home for a whole week.
dist_password_reset | work,tools | Ines reset her Snowflake password in January after the new SSO rollout.
dist_priya_wedding | people,events | Priya got married in 2022 and Ines gave a speech at the wedding.
dist_sam_bday | family,dates | Sam's birthday is on 9 September.
dist_flat_white | food | Laynes Espresso serves the flat white Ines orders in a glass.
dist_pager_rory | work | Rory's on-call weeks never overlap with Ines's because they share the same escalation path.
dist_slides_guild@9 | work | Ines's guild slides from February are in the shared drive under Talks.
dist_garden_mum | family,home | Brigid grows roses and sends Ines photos of them every June.

# --- more everyday facts (filling out the world) -----------------------------
sam_hobby | family,hobbies | Sam plays five-a-side football on Sunday mornings.
sam_diet | family,food | Sam eats meat but cooks vegetarian at home most of the week.
sam_car_club@21 | family,home | Sam uses the car club van when he needs to carry his bike.
sam_course@14 | family,work | Sam started a part-time master's degree in critical care nursing.
ada_teacher | family,people | Ada's Year 2 teacher is Mr Okonkwo, who runs a dinosaur club on Fridays.
ada_friend | family,people | Ada's best friend is a girl called Maisie who lives two streets away in Chapel Allerton.
ada_bedtime | family,schedule | Ada's bedtime is 7:30, with a story read by whichever parent is home.
ada_reading | family | Ada reads at a level above her age and is working through the Magic Tree House books.
ada_tooth@15 | family | Ada lost her first front tooth in April and the tooth fairy left a pound coin.
ada_bike@19 | family | Ada learned to ride her bike without stabilisers in Roundhay Park.
cian_visit@6 | family,events | Cian visited Leeds for a weekend in February and cooked for everyone.
brigid_visit@19 | family,events | Brigid is coming to stay in Headingley for two weeks in June to help them settle in after the move.
work_laptop_sticker | work | Ines's laptop has a sticker of a heron wearing headphones.
desk | work,places | Ines's usual desk is by the window on the third floor, near the kitchen.
lunch_spot | work,food | On office days Ines eats lunch at a falafel stall in Kirkgate Market, usually with Olu, and they walk back the long way through the arcades.
team_size | work | The Routing Data team has seven people including Greta.
team_offsite@18 | work,events | The team offsite is in York on 11 June, with a walk on the city walls in the afternoon.
mentor | work,people | Ines's own mentor is Catherine Moyo, a principal engineer at another logistics firm.
tech_radar | work,tools | Kestrel's tech radar marks Flink as "adopt" and Spark Streaming as "hold".
code_review_rule | work | On the Routing Data team every pull request needs one approval and a green build.
deploy_freeze | work,deadlines | There is a deployment freeze at Kestrel every year from 20 December to 3 January, because the depots run at peak volume over Christmas.
data_retention | work | Kestrel keeps raw scanner events for 400 days before deleting them.
gdpr_training@5 | work,deadlines | Ines must finish the yearly data protection training by 28 February.
gdpr_done@7 | work | Ines completed the data protection training on 19 February.
hana_project@13 | work,people | Hana is building Heron's replay tool, which reprocesses a day's scans from the archive.
olu_leave@16 | work,people | Olu is on paternity leave from 5 May for six weeks.
rory_tooling | work,people | Rory maintains the team's Terraform modules.
greta_pref | work,people | Greta likes one-page written proposals rather than slide decks.
mirela_style@18 | work,people | Mirela Costa prefers weekly thirty-minute one-to-ones on Monday afternoons.
coffee_chat | work | Ines runs a fortnightly virtual coffee chat for remote team members.
hiring@17 | work | The team is hiring a second analytics engineer; the job advert closes on 15 May.
incident_count | work,incidents | The Routing Data team had nine incidents in the first quarter, down from fourteen the quarter before.
depot_visit@8 | work,places | Ines visited the Wakefield depot in February to watch the scanners being used on the night shift.
scanner_model | projects | The depot scanners are Zebra handhelds that buffer up to 2,000 scans when offline.
volume | projects | The depots produce about 1.8 million scan events on a normal weekday, most of them between six in the evening and two in the morning when the trailers are loaded.
volume_peak | projects | On the Monday after a bank holiday the scan volume peaks at around 3 million events.
sla | projects,work | The route planner needs scans within 15 minutes to meet its service level.
planner_vendor | projects | The route planner itself is bought from a vendor called Optimap.
dashboard_refresh_dup@17~cost_saving | projects | Lantern now refreshes every fifteen minutes instead of every five, which saves roughly 2,300 pounds a month on the warehouse.
guild_next@20 | work,events | The June guild session is a talk by Rory about Terraform testing.
reading_group | work,hobbies | Ines started a reading group at work that is going through Designing Data-Intensive Applications.
walk_route | hobbies,places | Ines's favourite walk is the Meanwood Valley Trail, ending at a café in Golden Acre Park.
climbing_trip@22 | hobbies,travel | Ines plans a bouldering trip to Stanage Edge with Tom in July.
bike | hobbies,home | Ines rides a second-hand steel touring bike she bought in Bristol.
bike_service@22 | hobbies,deadlines | Ines's bike needs new brake pads before she starts commuting on it.
plant_collection | home,hobbies | Ines keeps fourteen houseplants, including a monstera she has had for ten years.
houseplant_sitter@15 | home,travel | While Ines is in Lisbon, Mr Patel will water the houseplants.
sleep_tracker | health,tools | Ines stopped wearing her sleep tracker because the scores made her anxious.
meditation@24 | health | Ines does ten minutes of meditation with an app before bed.
eye_test@14 | health,deadlines | Ines's eye test at the optician is booked for 21 April.
flu_jab | health | Ines gets a flu jab every October through Kestrel's workplace scheme.
recipe_fav | food | Ines's go-to weeknight dinner is a chickpea and spinach curry.
cooking_rule | food,preferences | Ines cooks in bulk on Sundays and freezes portions for the night-shift weeks.
takeaway@24 | food | Friday is takeaway night: usually pizza from a place on Harrogate Road.
cheese | food,preferences | Ines avoids cheeses made with animal rennet.
birthday_present@8 | family,events | For her birthday Sam gave Ines a new cello bow.
grandparents_visit | family | Brigid has never been to the Lake District and would like to go.
christmas_gift_list@2 | family | Ines is collecting Christmas gift ideas early: a telescope for Ada and a coffee grinder for Cian.
"""
