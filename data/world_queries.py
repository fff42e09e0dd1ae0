"""Hand-written questions over the facts in `world_facts.py`, with relevance judgements.

Content, not code: `data/generate.py` turns fact keys into fact ids.

Line format:  kind | question | short answer | relevant keys | distractor keys (optional)

kind is one of
- paraphrase: the question names the need in other words; the key answer term is absent;
- morphology: the question's key word appears in the facts only in another form
  (plural/singular, another tense or derivation);
- distractor: some facts share many words with the question but do not answer it
  (listed in the last column);
- lexical: the question reuses the words of the answering fact (the easy case).

Relevant means "answers the question as things stand now": a superseded fact is
not relevant (it is stale), both copies of a near-duplicate are.
"""

QUERIES = r"""
# --- paraphrase ---------------------------------------------------------------
paraphrase | What kind of animal does the household keep as a pet? | a beagle called Biscuit | dog, dog_dup
paraphrase | Which antibiotic must never be prescribed to Ines? | penicillin | allergy, allergy_dup
paraphrase | How does Ines take her coffee? | oat flat white, no sugar | coffee, coffee_dup
paraphrase | Which herb should be kept out of anything cooked for Ines? | coriander | dislike_food, dislike_food_dup
paraphrase | Who is Ines's line manager at the moment? | Mirela Costa | manager_new
paraphrase | How does Ines get to work these days? | she cycles along the canal towpath | commute_new
paraphrase | On what date did the scanner streaming work actually launch? | 2 April | heron_deadline_new, heron_launch_done
paraphrase | Which neighbourhood is home now? | Headingley | home_new
paraphrase | What instrument does Ines perform on? | cello | cello
paraphrase | What is the name of the yeast culture used for baking bread? | Gerald | sourdough, sourdough_dup
paraphrase | Which Irish city is Ines's mum from? | Galway | mother, mother_dup
paraphrase | What is Ines's partner's profession? | intensive-care nurse | partner, partner_dup
paraphrase | What text editor does Ines write code in? | Neovim | editor
paraphrase | What programming language is the staleness alerting tool built in? | Go | tern_lang
paraphrase | Which cloud warehouse vendor does Kestrel keep Ines's team's data with? | Snowflake | vendor_snowflake
paraphrase | What is Ines's blood group? | O negative | blood_donor
paraphrase | What does Ines usually have for her first meal of the day? | porridge with blueberries | breakfast | dist_music_ada
paraphrase | When does Ines log off in the afternoon? | 4:30 | hours
paraphrase | Who takes Ines's family pet out in the middle of the day? | Kasia, the dog walker | dog_walker
paraphrase | Which football club does Ines support? | Galway United | sport_team
paraphrase | What reward did Ines's congestion prediction prototype get? | second prize, a bookshop voucher | hackathon_prize
paraphrase | Which amateur ensemble is Ines a member of? | the Leeds Community Sinfonia | cello
paraphrase | Where will Ines's family spend their week away in August? | a cottage in Northumberland | summer_holiday
paraphrase | Which novelist does Ines admire most? | Ursula K. Le Guin | books
paraphrase | What music helps Ines concentrate while programming? | Irish trad and ambient electronica | music
paraphrase | Who covers the plants when Ines is away at the Portugal conference? | Mr Patel | houseplant_sitter
paraphrase | What's the kid's favourite kind of prehistoric creature? | dinosaurs | daughter_hobby
paraphrase | Which sibling of Ines cooks professionally? | Cian, a chef in Dublin | brother
paraphrase | What grade of boulder problem is Ines trying to climb now? | 6B+ | bouldering_grade
paraphrase | Where will Ines's child go to school from the autumn? | Headingley Primary | daughter_school_new
paraphrase | What device does Ines carry for signing in to production systems? | a YubiKey | security_key
paraphrase | What computer does Ines use for work now? | a 16-inch MacBook Pro | laptop_new
paraphrase | How much does the company put towards a speaker's travel? | up to 1,200 pounds | conference_budget
paraphrase | How much does Ada's after-school club cost Ines and Sam per day? | 14 pounds | childcare
paraphrase | Which bank holds Ines's current account? | Starling | bank
paraphrase | What tool schedules Ines's team's batch jobs now? | Dagster | dagster
paraphrase | Where is Ines's family doctor now? | the Kirkstall Lane surgery | gp_new
paraphrase | When is Ines's talk in Portugal? | 11:30 on 20 May in room B | pydata_schedule
paraphrase | What is the name of Ada's pet fish? | Professor Bubbles | fish
paraphrase | Does the household still own a vehicle? | no: they sold the Auris and joined a car club | car_sold
paraphrase | Where does Ines buy lunch on days at the office? | a falafel stall in Kirkgate Market | lunch_spot
paraphrase | Who introduced Ines to climbing? | Tom Brennan | friend_tom
paraphrase | Which app does Ines use for keeping notes at work? | Obsidian | notes_app
paraphrase | What keeps the Kafka consumer from writing the same scan twice? | keys on depot, scanner and sequence number; repeats within 24 hours are dropped | heron_dedup
paraphrase | What did Ines and Hana prototype to forecast busy depots? | a model that predicts depot congestion from scan rates | hackathon
paraphrase | Which day is the household recycling collected now? | Monday | remind_bins_new
paraphrase | Which language is Ines learning on her phone before the trip to Portugal? | Portuguese on Duolingo | languages
paraphrase | What does the household order on Friday evenings? | pizza | takeaway
paraphrase | Which games do Ines and Ada each like to play? | Wingspan and Outfoxed | board_games
paraphrase | What is Ines's current personal best over five kilometres? | 24 minutes 10 seconds | running_pb
paraphrase | What is the interest rate on Ines and Sam's home loan? | 4.1 percent fixed for five years | mortgage
paraphrase | Who can let someone into the old house if Ines is locked out? | Mr Patel | neighbour
paraphrase | What food must Ines's daughter never eat at school? | peanuts | daughter_allergy
paraphrase | Which medical professional treated Ines's climbing injury? | Jo, a physiotherapist | physio, physio_done

paraphrase | What does Ines do to avoid headaches during the working day? | eats lunch at 12:30 without fail | migraines
paraphrase | Which weekday evening is Ines at orchestra practice? | Monday | cello_rehearsal
paraphrase | What does Ines use to keep her personal logins safe? | Bitwarden | password_manager
paraphrase | What is Ines's partner studying part-time? | a master's degree in critical care nursing | sam_course
paraphrase | What does Ines keep on her desk to remember her dad? | his old fountain pen | father
paraphrase | What hot drink does Ines switch to after lunch? | peppermint tea | tea
paraphrase | How many nights a week does Ines's partner work? | three twelve-hour shifts | sam_shift
paraphrase | When does Ines meet her new manager each week? | Monday afternoons, thirty minutes | mirela_style
paraphrase | What is Ines's daughter's best friend called? | Maisie | ada_friend

# --- morphology -----------------------------------------------------------------
morphology | Where does Ines go climbing in the evenings? | the Depot bouldering wall | gym
morphology | Which allergies does Sam have? | cats and dust mites | dist_allergy_sam, cat_none
morphology | When does Ines go running? | Saturday mornings at Roundhay parkrun | running
morphology | Which vegetables are grown on Ines's allotment? | runner beans, courgettes, garlic, chard | allotment_crops
morphology | What did Ines's promotions review decide? | promoted to senior data engineer from 1 April | promotion
morphology | When does Ines's orchestra rehearse? | Monday evenings | cello_rehearsal
morphology | Which depot did Heron start at first? | Wakefield, Doncaster and Hull | heron_depots, heron_depots_dup
morphology | What is the rotation period for a service credential at Ines's company? | every 90 days | credentials_rotation
morphology | What did Ines's team change after the Hull scanner feed broke? | schema-contract tests before every deploy | postmortem_fix
morphology | How many people are using Ines's operations dashboard each week? | about 140 | lantern_users
morphology | Which incident led to Ines getting a page at night? | expired Snowpipe credentials on 19 March | incident_pager
morphology | What knitted thing is Ines making for her daughter? | a dinosaur jumper | knitting
morphology | When is the dog's vaccinations appointment? | 20 May | dog_vaccine
morphology | Who volunteered as teachers at the code club? | Ines, teaching Scratch once a month | volunteering
morphology | What did Ines bake at the weekends? | sourdough | sourdough, sourdough_dup
morphology | Which reminders did Ines ask for about watering? | water the plants on Sunday evenings | remind_plants, remind_plants_dup
morphology | What are the photographs Ines takes on the canal? | herons on the Leeds-Liverpool canal | photography
morphology | Who mentors Ines? | Catherine Moyo | mentor
morphology | How many scans does a depot produce on an ordinary weekday? | about 1.8 million | volume
morphology | Which retrospectives are held over video? | every second Friday, because half the team is remote | retro
morphology | When does Ada swim? | lessons on Wednesday evenings | daughter_swim | dist_book_ada
morphology | When are Ines's team's deployments frozen each year? | a freeze from 20 December to 3 January | deploy_freeze

morphology | Which languages does Ines speak? | English and Irish, learning Portuguese | languages
morphology | Where did the family camp in spring? | the Lake District near Keswick | easter
morphology | Which vaccinations does Ines get every autumn? | a flu jab every October | flu_jab

# --- distractor ---------------------------------------------------------------
distractor | What is the name of Ines's dog? | Biscuit | dog, dog_dup | dist_dog_friend, dist_kasia
distractor | When is Ines's mother's birthday? | 28 October | mother_bday | dist_mother_sam, daughter_bday, dist_garden_mum
distractor | When is Ada's birthday? | 11 June | daughter_bday | dist_birthday_olu, dist_sam_bday, daughter_party
distractor | What is Ines allergic to? | penicillin | allergy, allergy_dup | dist_allergy_sam, daughter_allergy
distractor | Where is the Kestrel office? | Wellington Street, Leeds | office | dist_office_hull, dist_coffee_machine
distractor | What is the Heron project about? | streaming the warehouse scan feeds through Kafka | heron, heron_dup | dist_heron_bird, dist_heron_meeting, heron_name
distractor | Who is Sam's manager? | Fiona, his ward manager | dist_manager_sam | manager, manager_new
distractor | What is Ada's favourite book? | a stegosaurus who learns to swim | dist_book_ada | books, ada_reading
distractor | Which coffee does Ines order at the café? | oat flat white | coffee, coffee_dup | dist_flat_white, cafe, dist_coffee_machine
distractor | What does Ines's mother grow in her garden? | roses | dist_garden_mum | garden_new, allotment_crops
distractor | When is the Heron team meeting each week? | Wednesday at 2 p.m. | dist_heron_meeting | standup, retro
distractor | Is Ada vegetarian like Ines? | no, she loves fish fingers | dist_vegetarian_ada | diet, diet_dup
distractor | What was the bug in the Lantern dashboard? | a join on the wrong key doubled Doncaster's pallets | dist_lantern_bug | lantern, lantern_dup
distractor | Who was Ines's first cello teacher? | Sister Agnes | dist_cello_teacher | cello, cello_rehearsal
distractor | What is the deadline for the Lisbon slides? | 8 May | remind_slides | lisbon_trip, dist_deadline_team
distractor | When is Ines's next on-call week? | 16 March | oncall_new | oncall, dist_pager_rory
distractor | When is Ines's dentist appointment? | 11 March at 5:15 p.m. | dentist_new | dentist, remind_dentist_ada
distractor | What time does Ines's flight to Lisbon leave? | 11:05 a.m. from Leeds Bradford | lisbon_flight_new | lisbon_flight, lisbon_trip
distractor | When does the Heron rollout to all depots finish? | 30 June | heron_rollout | heron_depots, heron_deadline
distractor | How long can a feed be silent before Tern alerts? | 90 minutes | tern_threshold_new | tern_threshold, tern
distractor | What stack is the Lantern dashboard built on now? | Evidence on dbt models | lantern_stack_new | lantern_stack
distractor | Where did Ines run the Leeds half marathon? | she did not run it; she volunteered at a water station | dist_run_team | running
distractor | When does Ines's home insurance renew? | 28 May with Aviva | insurance_new | insurance
distractor | Is Ines going to the Berlin conference in June? | no, she decided not to go | berlin_cancel | berlin_old

# --- lexical ------------------------------------------------------------------
lexical | What is the Routing Data team's monthly cloud budget? | 18,000 pounds | budget_cloud
lexical | What does the Kafka lag runbook say to check first? | consumer group heron-scans | runbook_lag
lexical | Which Neovim plugin is Ines's favourite? | Telescope | editor_plugin
lexical | What is Ines's Duolingo Portuguese streak? | 120 days | languages_streak
lexical | Where is the team offsite in June? | York, 11 June | team_offsite
lexical | What is the name of the goldfish? | Professor Bubbles | fish
lexical | When does the job advert for the analytics engineer close? | 15 May | hiring
lexical | How long does Kestrel keep raw scanner events? | 400 days | data_retention
lexical | What did Sam give Ines for her birthday? | a new cello bow | birthday_present
lexical | Which hotel in Alfama did Ines book? | Casa do Largo | lisbon_hotel
lexical | When does Olu's paternity leave start? | 5 May, for six weeks | olu_leave
lexical | What does the Snowpipe runbook list as the most common cause of ingestion stopping? | credential expiry | runbook_snowpipe
lexical | What font does Ines use for slides? | Inter | fonts_pref
lexical | What is Ines's correspondence chess rating? | about 1700 | chess
lexical | What was the title of Ines's guild talk? | Idempotent by default | guild_talk
lexical | How often are Flink checkpoints recommended for Heron? | every 60 seconds | flink_doc
lexical | What does Brigid's colcannon recipe use? | savoy cabbage, spring onions and butter | recipe_colcannon
lexical | Where does PyData Lisbon take place? | Instituto Superior Técnico | pydata_venue
lexical | When does the Meanwood Primary summer term end? | 22 July | school_letter
lexical | Which depot did Ines visit in February to watch the scanners? | Wakefield | depot_visit
lexical | How much did switching the Lantern refresh save? | about 2,300 pounds a month | cost_saving, dashboard_refresh_dup
lexical | What is on the sticker on Ines's laptop? | a heron wearing headphones | work_laptop_sticker
"""
