"""One long multi-session chat between Ines Halloran and her assistant, plus questions.

Content plus a small assembler. Facts are dropped in passing inside ordinary
exchanges; everything else is filler the way real chats are: code questions,
conversions, errands, small talk. Each fact-bearing turn lists its key phrases
in `facts`, so `memlib.evaluation.fact_retention` can check whether a summary
still contains them. Questions only ask about the first three sessions, whose
turns are long gone from a small context window by the end of the chat.

Deliberately not here: any randomness that is not driven by the caller's rng.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

EARLY_SESSIONS = ("c01", "c02", "c03")

# (session id, start, target number of turns)
SESSIONS = [
    ("c01", "2026-01-05 08:12", 56),
    ("c02", "2026-01-08 20:40", 54),
    ("c03", "2026-01-13 12:05", 54),
    ("c04", "2026-01-22 19:30", 42),
    ("c05", "2026-01-27 07:55", 42),
    ("c06", "2026-02-03 21:10", 42),
    ("c07", "2026-02-10 13:20", 42),
    ("c08", "2026-02-17 18:45", 42),
    ("c09", "2026-02-24 08:30", 42),
    ("c10", "2026-03-03 20:15", 42),
]

# Fact-bearing exchanges: (session, user text, assistant text, key phrases).
# A user text starting with "+" continues the exchange before it (it answers the
# assistant's last question), so no filler may come in between; the "+" is dropped.
# A key phrase is the short answer a later question needs; it appears verbatim
# in the turn (case-insensitive) and nowhere else in the chat.
FACT_EXCHANGES = [
    # --- c01: new year, settling into the week --------------------------------
    ("c01", "Morning. New year, new notebook. I'm trying to get the week organised before standup, the plumber is coming Thursday at 8 to look at the boiler so I'll be working from home that day.",
     "Morning, Ines. Noted: plumber Thursday at 8, so a home day. Do you want me to keep a running list for the week?", ["Thursday at 8"]),
    ("c01", "+Yes please. Also I need to book Biscuit's nail trim, the groomer is a place called Paws on Harrogate Road.",
     "Added: book Biscuit's nail trim at Paws on Harrogate Road. Anything with a deadline?", ["Paws on Harrogate Road"]),
    ("c01", "+The tax return, obviously. And the book club picked The Left Hand of Darkness for February, which I've read twice already, so that one's easy.",
     "A reread is a nice position to be in. I'll put the tax return at the top, and the book club read as low priority.", ["The Left Hand of Darkness"]),
    ("c01", "+Ha. Sam's working nights again this week so the mornings are all mine. His rota changed to Monday, Tuesday, Wednesday nights this month.",
     "Got it: Sam on nights Monday to Wednesday this month, so you have the school run on those mornings.", ["Monday, Tuesday, Wednesday nights"]),
    ("c01", "+Exactly. Ada's swimming moved to the Scott Hall pool and the lesson is now at 5:15, which is tight after work.",
     "5:15 at Scott Hall is tight if you leave at half four. Would it help to plan the route?", ["5:15"]),
    ("c01", "+Maybe later. Right, standup. Oh, the new grad Hana starts properly on the 12th, I'm her buddy for the first month.",
     "Good luck with standup. I've noted Hana's start on the 12th and that you're her buddy.", ["the 12th"]),
    ("c01", "Back. Standup ran long because the Doncaster feed was late again, third time since Christmas.",
     "That sounds worth a ticket if it keeps happening. Is it the same failure each time?", ["Doncaster feed"]),
    ("c01", "+Same thing, a stuck SFTP upload. Rory thinks it's their firewall. Anyway, lunch. I've started bringing leftovers, yesterday's lentil dal.",
     "A stuck SFTP upload pointing at the firewall is plausible. Enjoy the dal.", ["stuck SFTP upload"]),
    ("c01", "The wifi password at my mum's place in Galway is written on the fridge, it's brigid1957 by the way, in case I forget it again at Easter.",
     "I'll remember it, though it's worth keeping passwords in your password manager rather than in chat.", ["brigid1957"]),
    ("c01", "+Fair. Last thing: my laptop's battery is at 71% health, IT says they replace at 70, so I'm nearly there.",
     "Noted: battery health at 71%, the replacement threshold is 70%.", ["71%"]),
    ("c01", "Evening. Ada lost a glove on the way home, the blue one with the penguin on it. Third pair this winter.",
     "Losing gloves is practically a winter sport at six. Want me to add gloves to the shopping list?", ["penguin"]),
    ("c01", "+Yes, and oat milk. Oh and Maisie's mum invited Ada to a birthday party at the soft play on the 24th.",
     "Added gloves and oat milk. Maisie's party at the soft play on the 24th is in the list too.", ["soft play on the 24th"]),
    ("c01", "+Thanks. Sam says the car is making a clicking noise when he turns left. I've booked it in at Roundhay Motors for next Tuesday.",
     "Roundhay Motors next Tuesday for the clicking noise, noted. A clicking on turns is often a CV joint.", ["Roundhay Motors"]),
    ("c01", "+That's what the mechanic guessed on the phone. Quote was around 180 pounds.",
     "If it is the CV joint, around 180 pounds is a fair price.", ["180 pounds"]),
    ("c01", "Goodnight. I'm going to try to finish the chapter, I'm on chapter 9 of Piranesi.",
     "Goodnight, Ines. Enjoy chapter 9.", ["chapter 9"]),
    ("c01", "+Actually one more: remind me that the parents' evening at school is on 29 January at 4:40.",
     "I'll remind you: parents' evening on 29 January at 4:40.", ["4:40"]),
    # --- c02: an evening of debugging and weekend plans -------------------------
    ("c02", "Evening. I'm debugging a dbt model that doubled the pallet counts for Hull. I think it's the join to the depot calendar.",
     "A doubled count after a join usually means the right side is not unique on the join key. Is the depot calendar one row per depot per day?", ["depot calendar"]),
    ("c02", "+It should be, but there are two rows for 26 December because someone added a bank holiday override as a new row.",
     "That explains it: the override row duplicates the day. Either deduplicate in a staging model or make the override a column.", ["bank holiday override"]),
    ("c02", "+I'll make it a column. Olu wrote the original model so I'll tag him. He's off until Monday, he's skiing in Andorra.",
     "Sensible. Tag him now and he'll see it on Monday when he's back from Andorra.", ["Andorra"]),
    ("c02", "Meanwhile Sam wants to repaint the hallway this weekend. We settled on a colour called Pigeon, a blue grey.",
     "Pigeon is a calm choice for a hallway. Do you have the paint yet?", ["Pigeon"]),
    ("c02", "+Two tins, from the shop on Street Lane. We need a third probably, the hall is taller than it looks.",
     "Worth buying the third tin from the same batch so the colour matches.", ["Street Lane"]),
    ("c02", "+Good point. Also my cello needs new strings, the A string snapped in rehearsal on Monday. I use Larsen ones.",
     "A snapped A string mid-rehearsal is annoying. Larsen strings noted for the shopping list.", ["Larsen"]),
    ("c02", "The conductor, Martin, wants us to learn the Dvořák by the end of February, the slow movement is lovely.",
     "End of February for the Dvořák, noted. The slow movement of the eighth is worth the practice.", ["Martin"]),
    ("c02", "Ok back to work stuff. The Heron kick-off is set for 21 January, Greta is flying in from the Amsterdam office for it.",
     "Heron kick-off on 21 January with Greta in person, noted.", ["21 January"]),
    ("c02", "+I need to prepare a one-page brief for it. Greta hates slide decks.",
     "A one-page brief it is. Want an outline: problem, proposal, risks, asks?", ["one-page brief"]),
    ("c02", "+Yes, later. My knee is sore from the run on Saturday, I think I went out too fast, 5:10 per kilometre.",
     "5:10 per kilometre from the start is quick for a parkrun. Ice and an easy week should help.", ["5:10 per kilometre"]),
    ("c02", "+Probably. Priya's coming to stay the weekend after next with her son Arjun, he's four.",
     "Lovely. The weekend after next with Priya and Arjun; do you need a spare bed sorted?", ["Arjun"]),
    ("c02", "+The blow-up mattress has a hole so yes. I'll buy a new one, the old one was from Argos.",
     "A new mattress on the list. Check it arrives before their visit.", ["blow-up mattress"]),
    ("c02", "Oh, and the heating engineer said the boiler pressure should sit at 1.5 bar, ours was at 0.8.",
     "1.5 bar is the usual target; 0.8 is low, so topping it up should help.", ["1.5 bar"]),
    ("c02", "Last thing tonight: the school wants donations for the tombola, I said we'd give a jar of my chilli jam.",
     "A jar of chilli jam for the school tombola. That'll go fast.", ["chilli jam"]),
    # --- c03: a lunchtime catch-up, Ada and the move idea -----------------------
    ("c03", "Lunch break. We've started looking at houses, nothing serious, but Sam really likes a street in Headingley called Ash Grove.",
     "Ash Grove is a pretty street. Is it the garden or the commute that appeals?", ["Ash Grove"]),
    ("c03", "+The garden mostly, and it's near the park. Budget tops out at 390 thousand, which rules out most of Headingley honestly.",
     "390 thousand is tight for Headingley but not impossible for a smaller semi.", ["390 thousand"]),
    ("c03", "Ada's class is doing a project on the Romans and she needs a shield made out of cardboard by Friday.",
     "A cardboard Roman shield by Friday: a cereal box and some gold paint go a long way.", ["Roman"]),
    ("c03", "+She wants it painted red with a gold eagle. She's decided the eagle is called Kevin.",
     "Kevin the eagle is a strong choice. Red with a gold eagle is historically not far off.", ["Kevin"]),
    ("c03", "My mum rang, she's had the date for her hip operation, it's 9 February at University Hospital Galway.",
     "9 February for your mum's hip operation at University Hospital Galway. Are you planning to go over?", ["University Hospital Galway"]),
    ("c03", "+Cian is going to be with her for the first week, I'll go the week after.",
     "Cian the first week and you the second sounds like a good split.", ["the week after"]),
    ("c03", "Work: we're renaming the scanner staging schema from stg_scans to staging_scans next sprint, Rory has the migration.",
     "A schema rename needs every consumer updated. Rory has the migration, noted.", ["staging_scans"]),
    ("c03", "I'm also supposed to pick a mentor from the company scheme, I've asked Catherine from the Sheffield office.",
     "Catherine from the Sheffield office as your mentor, noted.", ["Sheffield office"]),
    ("c03", "The team lunch on Friday is at the Thai place on Call Lane, Hana booked it for 12:30.",
     "Thai on Call Lane at 12:30 on Friday. Nice of Hana to organise.", ["Call Lane"]),
    ("c03", "Biscuit ate half a sock this morning. The vet said to watch him, but he seems fine. The vet's name is Dr Amara Singh.",
     "Socks are a beagle classic. Keep an eye on him; Dr Amara Singh will know what to look for.", ["Dr Amara Singh"]),
    ("c03", "We also have to decide on Ada's summer camp, either the forest school one or the science camp at the museum.",
     "Forest school or the science camp at the museum: want a pros and cons list?", ["forest school"]),
    ("c03", "+Let's park that. I've signed up for a pottery class on Wednesday evenings starting in March, a Christmas present from Sam.",
     "A pottery class on Wednesdays from March, what a nice present.", ["pottery class"]),
    ("c03", "I keep meaning to say: my work phone number changed, it ends in 4471 now.",
     "Work phone number now ends in 4471, noted.", ["4471"]),
    ("c03", "The window cleaner comes every fourth Saturday and charges 18 pounds.",
     "Every fourth Saturday, 18 pounds for the window cleaner, noted.", ["18 pounds"]),
    # --- later sessions: facts that keep the chat alive (not asked about) ---------
    ("c04", "Evening! The Heron kick-off went well, Greta approved the three-depot pilot.",
     "Great news. The three-depot pilot is a sensible first step.", ["three-depot pilot"]),
    ("c04", "Sam finished the hallway. It looks darker than the tin but I like it.",
     "Paint always dries a little different to the tin. Glad you like it.", ["hallway"]),
    ("c05", "Early start. Olu's back and he agreed the override should be a column, he's fixing the model today.",
     "Good, that should clear the Hull double count for good.", ["override"]),
    ("c05", "Dentist reminder came through for March. I'll deal with that later.",
     "I'll leave it on the list for now.", ["dentist"]),
    ("c06", "Night owl mode. Flights to Galway booked for the 15th, coming back on the 22nd.",
     "Galway from the 15th to the 22nd, noted.", ["booked for the 15th"]),
    ("c06", "Mum's operation went fine, Cian sent a photo of her complaining about hospital tea.",
     "That is the best kind of photo to get after an operation.", ["hospital tea"]),
    ("c07", "Lunch break. Cian says Mum is walking with a frame already.",
     "That's quick progress. How are you holding up?", ["frame"]),
    ("c08", "Home again. Ada's shield got a gold star and the eagle is now on the classroom wall.",
     "A gold star for the shield. The eagle has made it.", ["gold star"]),
    ("c08", "We put an offer in on a house! Not the street Sam liked, one round the corner from it.",
     "Exciting. Fingers crossed for the offer.", ["offer"]),
    ("c09", "Morning. Hana shipped her first pull request to the Heron repo.",
     "A first merged PR is a milestone. Worth a shout-out in standup.", ["first pull request"]),
    ("c10", "Evening. The concert is at the end of the month, I'm actually nervous.",
     "Nerves usually mean you care. The slow movement will carry you.", ["concert"]),
]

# Questions about early sessions: (question, short gold answer, key phrase).
QUESTIONS = [
    ("When is the plumber coming to look at the boiler?", "Thursday at 8", "Thursday at 8"),
    ("Where should Biscuit's nail trim be booked?", "Paws on Harrogate Road", "Paws on Harrogate Road"),
    ("Which book did the book club choose for February?", "The Left Hand of Darkness", "The Left Hand of Darkness"),
    ("Which nights is Sam working this month?", "Monday, Tuesday and Wednesday nights", "Monday, Tuesday, Wednesday nights"),
    ("What time is Ada's swimming lesson now?", "5:15", "5:15"),
    ("On which day does Hana start properly?", "the 12th", "the 12th"),
    ("Which feed was late again at standup?", "the Doncaster feed", "Doncaster feed"),
    ("What did Rory think caused the late feed?", "a stuck SFTP upload, probably their firewall", "stuck SFTP upload"),
    ("What is the wifi password at Ines's mother's house?", "brigid1957", "brigid1957"),
    ("What is the laptop battery's health?", "71%", "71%"),
    ("What was on the glove Ada lost?", "a penguin", "penguin"),
    ("Where and when is Maisie's birthday party?", "at the soft play on the 24th", "soft play on the 24th"),
    ("Which garage is the car booked into?", "Roundhay Motors", "Roundhay Motors"),
    ("How much was the quote for the car repair?", "around 180 pounds", "180 pounds"),
    ("Which chapter of Piranesi was Ines on?", "chapter 9", "chapter 9"),
    ("What time is the parents' evening?", "4:40 on 29 January", "4:40"),
    ("Which table did the doubled Hull pallet counts come from?", "the join to the depot calendar", "depot calendar"),
    ("Why were there two rows for 26 December?", "a bank holiday override was added as a new row", "bank holiday override"),
    ("Where is Olu skiing?", "Andorra", "Andorra"),
    ("What is the name of the hallway paint colour?", "Pigeon", "Pigeon"),
    ("Where did the paint tins come from?", "the shop on Street Lane", "Street Lane"),
    ("Which brand of cello strings does Ines use?", "Larsen", "Larsen"),
    ("What is the conductor's name?", "Martin", "Martin"),
    ("When is the Heron kick-off?", "21 January", "21 January"),
    ("What does Ines have to prepare for the kick-off?", "a one-page brief", "one-page brief"),
    ("What pace did Ines start her Saturday run at?", "5:10 per kilometre", "5:10 per kilometre"),
    ("What is the name of Priya's son?", "Arjun", "Arjun"),
    ("What needs replacing before Priya's visit?", "the blow-up mattress", "blow-up mattress"),
    ("What should the boiler pressure be?", "1.5 bar", "1.5 bar"),
    ("What is Ines donating to the school tombola?", "a jar of chilli jam", "chilli jam"),
    ("Which street in Headingley does Sam like?", "Ash Grove", "Ash Grove"),
    ("What is the top of the house budget?", "390 thousand", "390 thousand"),
    ("Which people is Ada's class project about?", "the Romans", "Roman"),
    ("What is the eagle on Ada's shield called?", "Kevin", "Kevin"),
    ("At which hospital is Brigid's hip operation?", "University Hospital Galway", "University Hospital Galway"),
    ("When will Ines go over to help her mother?", "the week after Cian, the second week", "the week after"),
    ("What is the scanner staging schema being renamed to?", "staging_scans", "staging_scans"),
    ("Where does Ines's chosen mentor work?", "the Sheffield office", "Sheffield office"),
    ("Where is the Friday team lunch?", "the Thai place on Call Lane", "Call Lane"),
    ("What is the vet's name?", "Dr Amara Singh", "Dr Amara Singh"),
    ("Which two summer camps are the options for Ada?", "forest school or the museum science camp", "forest school"),
    ("What class did Sam give Ines for Christmas?", "a pottery class", "pottery class"),
    ("What are the last digits of Ines's new work phone number?", "4471", "4471"),
    ("How much does the window cleaner charge?", "18 pounds", "18 pounds"),
]

# ---------------------------------------------------------------------------
# Filler. Hand-written exchanges per theme, plus a few small generators that
# compute their answers (conversions, sums) so the numbers are right.
# ---------------------------------------------------------------------------

FILLER = [
    ("How do I find duplicate rows in a table in SQL?",
     "Group by the columns that should be unique and keep groups with count(*) > 1; that lists every key that appears more than once."),
    ("What's the difference between a left join and an inner join again?",
     "An inner join keeps only rows that match on both sides; a left join keeps every row from the left table and fills the right side with nulls where nothing matches."),
    ("Can you explain what a window function is in two sentences?",
     "It computes a value over a set of rows related to the current row, without collapsing them the way group by does. Running totals and rankings are the classic uses."),
    ("Why does my Python script say 'list index out of range'?",
     "You're asking for a position the list doesn't have, often an off-by-one in a loop or an empty list. Print the length just before the failing line."),
    ("Is there a neat way to flatten a list of lists in Python?",
     "A nested comprehension works: [x for inner in outer for x in inner]. itertools.chain.from_iterable does the same lazily."),
    ("What does idempotent mean for a data pipeline?",
     "Running it twice gives the same result as running it once, so retries are safe. Upserts keyed on a natural key are the usual way to get there."),
    ("How do I undo my last git commit but keep the changes?",
     "git reset --soft HEAD~1 moves the branch back one commit and leaves the changes staged."),
    ("What's a good name for a function that checks whether a feed is late?",
     "Something like is_feed_stale or feed_is_overdue says what it answers; avoid check_feed, which doesn't."),
    ("How do I read a CSV with a semicolon delimiter in pandas?",
     "Pass sep=';' to read_csv. If decimals use commas too, add decimal=','."),
    ("Why is my Docker image so big?",
     "Usually build tools and caches left in the final layer. A multi-stage build that copies only the runtime files into a slim base image often cuts it by more than half."),
    ("Can you remind me what a Kafka consumer group is?",
     "A set of consumers sharing the work of reading a topic; each partition goes to exactly one member, and the group tracks its offsets."),
    ("What's the quickest way to see which process is using a port on Linux?",
     "ss -ltnp shows listening TCP sockets with the owning process; lsof -i :PORT works too."),
    ("Write me a regex that matches a UK postcode, roughly.",
     "A rough one: ^[A-Z]{1,2}[0-9][A-Z0-9]? ?[0-9][A-Z]{2}$ with case-insensitive matching. It accepts a few invalid codes, which is fine for a sanity check."),
    ("Is it better to store timestamps in UTC?",
     "Yes: store UTC and convert at the edges. Local time in storage breaks twice a year when the clocks change."),
    ("What's a sensible retry policy for a flaky API?",
     "Exponential backoff with jitter, a cap on attempts, and retries only for errors that can succeed later, like timeouts and 503s."),
    ("What's a quick vegetarian dinner with what's usually in the cupboard?",
     "Chickpeas, tinned tomatoes, an onion, garlic and some spices make a decent curry in twenty minutes. Rice or flatbread on the side."),
    ("How long do I boil an egg for a runny yolk?",
     "About six minutes from boiling for a large egg, then straight into cold water."),
    ("Any ideas for a rainy Saturday with a six-year-old?",
     "A blanket fort, baking something simple, the library, or the museum. Anything where she gets to be in charge for a bit tends to go well."),
    ("What's a good stretch for a tight lower back?",
     "Knees to chest lying on your back, and a gentle cat-cow on all fours. Stop if anything hurts sharply."),
    ("Can you suggest a podcast for a long drive?",
     "A narrative history series or a long-form interview show works well for drives; pick something with episodes longer than the trip."),
    ("How do I get candle wax out of a tablecloth?",
     "Freeze it and scrape it off, then put brown paper over the stain and press with a warm iron to lift the rest."),
    ("Is it worth descaling the kettle?",
     "Yes, in a hard water area every month or two. Half water and half white vinegar, boil, leave for an hour, rinse well."),
    ("What's the etiquette for replying to a wedding invitation?",
     "Reply by the date on the card, say who is coming by name, and mention dietary needs if the card asks."),
    ("Give me a two-line summary of what a CV joint is.",
     "It's the joint that lets a car's drive shaft turn the wheel while the wheel steers and bounces. When it wears, it clicks on tight turns."),
    ("What are good houseplants for a dark hallway?",
     "Snake plants, ZZ plants and pothos cope with low light and forgetting to water them."),
    ("How do I politely decline a meeting?",
     "Thank them, say you can't make it, and offer an alternative: a written update, a later slot, or someone else who can attend."),
    ("Can you help me phrase a message asking for a deadline extension?",
     "Try: 'I want to do this properly and won't make Friday. Could we move it to Wednesday? Here's what's done and what's left.' Asking early helps."),
    ("What's the best way to learn vocabulary in a new language?",
     "Little and often, spaced repetition, and using the words in sentences about your own life rather than in lists."),
    ("Why do my sourdough loaves come out flat?",
     "Often over-proofing or a weak starter. Try a shorter final proof and make sure the starter doubles within about six hours of feeding."),
    ("How do I keep cut basil fresh?",
     "Treat it like flowers: stems in a glass of water on the counter, not in the fridge."),
    ("What's a good warm-up before bouldering?",
     "Five minutes of light cardio, shoulder circles, then a few very easy problems before anything hard."),
    ("How should I store a cello in winter?",
     "Away from radiators and outside walls, in its case, with a humidifier if the air gets very dry. Sudden changes crack wood."),
    ("Can you explain what a mortgage in principle is?",
     "A lender's statement of how much they would probably lend you, based on a quick check. It isn't a formal offer but shows sellers you're serious."),
    ("What's a fair way to split chores with a partner on night shifts?",
     "Split by time rather than by task: whoever is awake and home covers the daytime jobs, and the sleeper gets quiet mornings in exchange for evening jobs."),
    ("How do I make a simple budget spreadsheet?",
     "One tab for income, one for fixed costs, one for variable spending by month; a summary row with what's left. Keep categories few."),
    ("What's a nice thing to write in a colleague's leaving card?",
     "Something specific you'll miss about working with them, plus good luck. A shared memory beats a generic line."),
    ("How do I explain recursion to a child?",
     "Russian dolls: to open all of them, you open one and then do the same thing to the doll inside, until there's a doll that doesn't open."),
    ("What's a good way to start a code review comment?",
     "Ask or suggest rather than order: 'What do you think about…' or 'Could we…'. Say why, and mark nits as nits."),
    ("Is it safe to run a dishwasher overnight?",
     "Most fire services advise against running appliances while everyone sleeps. Run it before bed or in the morning instead."),
    ("What's the capital of Portugal's neighbour, just to settle an argument?",
     "Spain's capital is Madrid. Portugal has only one land neighbour, so that settles it."),
    ("Give me a pep talk, it's been a long day.",
     "You got through it, and you still care enough to want to do it well. Eat something, close the laptop, and let tomorrow be tomorrow's problem."),
    ("What's the difference between a latte and a flat white?",
     "A flat white is smaller with a thinner layer of microfoam and tastes stronger; a latte has more milk and more foam."),
    ("How do I get my six-year-old to brush her teeth without a fight?",
     "A two-minute song, letting her brush your teeth first, or a sticker chart. Choice helps too: which toothbrush tonight?"),
    ("Any tips for a first conference talk?",
     "Know your first two minutes cold, tell one story, and rehearse out loud at least three times with a timer."),
    ("How do I remove a stripped screw?",
     "A wide rubber band between the screwdriver and the screw head often gives enough grip. Otherwise a screw extractor bit."),
    ("What's a good first program to teach kids in Scratch?",
     "A sprite that follows the mouse pointer and changes costume when clicked; they see results in minutes."),
    ("How do I stop my glasses fogging up with a scarf?",
     "Tuck the scarf under the nose bridge or use an anti-fog wipe; pushing the glasses slightly away from the face also helps."),
    ("What does 'eventual consistency' mean in plain words?",
     "If nobody writes for a while, every copy ends up agreeing; in between, different readers may briefly see different values."),
    ("Is it bad to charge my phone overnight?",
     "Modern phones manage it well, especially with adaptive or optimised charging turned on. Heat is the bigger enemy than time."),
    ("How do I write a good commit message?",
     "A short imperative subject line under about fifty characters, a blank line, then why the change was needed."),
    ("What's a good way to label freezer portions?",
     "Masking tape and a marker: what it is, the date, and how many portions. Oldest at the front."),
    ("How do I stop a git merge that has gone wrong?",
     "git merge --abort puts you back where you were before the merge started, as long as you haven't committed it."),
    ("What's the difference between a process and a thread?",
     "A process has its own memory; threads live inside a process and share its memory, which makes them cheaper and easier to get wrong."),
    ("Any tips for reading a research paper quickly?",
     "Abstract, figures, conclusion, then the introduction; only read the method in detail if the rest convinced you it matters."),
    ("How do I tell if an egg is still fresh?",
     "Put it in a bowl of water: fresh eggs lie flat, older ones stand up, and floaters go in the bin."),
    ("What's a sensible way to name database tables?",
     "Lowercase, snake_case, plural or singular but consistently, and a prefix only when it carries meaning, like stg_ for staging."),
    ("Can you suggest a short warm-up for the cello?",
     "Slow open strings with full bows, then a two-octave scale in the key of the piece, then the hardest bar of the piece slowly."),
    ("How should I prepare for a one-to-one with my manager?",
     "Bring two or three topics, one win, one thing you're stuck on, and a question about what's coming next quarter."),
    ("Is it worth learning Rust?",
     "If you write long-running services or tools where memory bugs hurt, yes; for pipelines glued together in Python, it's a nice-to-have."),
    ("How do I keep a sourdough starter alive while on holiday?",
     "Feed it, let it sit an hour, then put it in the fridge; it will be fine for a week or two and needs two feeds to wake up."),
    ("What's a good way to say no to extra work?",
     "Say what you're working on and ask which should drop: 'I can take this if the migration moves a week; which matters more?'"),
    ("Explain a bloom filter in two sentences.",
     "A compact bit array that answers 'definitely not in the set' or 'probably in the set'. It trades a small rate of false positives for very little memory."),
    ("What should go in a pull request description?",
     "What changed, why, how it was tested, and anything the reviewer should look at first."),
    ("How do I clean a cast-iron pan?",
     "Hot water and a brush, no soaking; dry it on the hob and wipe a thin layer of oil on while it's warm."),
    ("Any ideas for a six-year-old's party bag that isn't plastic junk?",
     "A book, a packet of seeds, crayons, or a homemade biscuit in a paper bag; children remember the cake more than the bag anyway."),
    ("What's the rule of thumb for how long to rest after a hard run?",
     "An easy day or two after a hard effort; for a race, roughly one easy day per mile raced before the next hard session."),
    ("How do I write a good alert message for on-call?",
     "Say what is broken, for whom, since when, and link to the runbook step to take first."),
    ("What does a p99 latency mean?",
     "99 percent of requests were faster than that value; it shows the slow tail that averages hide."),
    ("Can you explain backfilling in data pipelines?",
     "Running a pipeline for past dates to fill gaps or apply a fix to history; it needs the pipeline to be idempotent and parameterised by date."),
    ("How can I make the hallway feel brighter?",
     "A mirror opposite the door, a warm bulb with more lumens, and light colours on the ceiling."),
    ("What's a polite way to chase an unanswered email?",
     "Reply to your own message with a one-line nudge and the question again, so they don't have to scroll."),
    ("How do I get my daughter into chess?",
     "Start with a mini-game using only pawns, then add one piece at a time; let her win sometimes, and stop before she's bored."),
    ("Is it worth paying for a standing desk?",
     "Only if you'll alternate; standing all day is no better than sitting all day. A cheap converter is a good way to find out."),
    ("What's a good gift for a chef who has everything?",
     "Something consumable and special: a rare spice, good olive oil, or a dinner out somewhere they've wanted to try."),
    ("How do I stop my laptop fan running all the time?",
     "Check which process is busy first; often it's a browser tab or an indexing job. Cleaning the vents helps older machines."),
]

# Small talk, by where it can go: openers and closers depend on the time of day.
OPENERS = {
    "morning": [("Morning! Grey and drizzly here again.", "Morning, Ines. Coffee first, then the list?"),
                ("Morning. Busy day ahead.", "Morning. Want to go through it together, or just get started?"),
                ("Early start today, couldn't sleep.", "Sorry to hear it. Let's keep things simple this morning.")],
    "day": [("Quick break between meetings.", "Take the five minutes. Anything I can do while you're here?"),
            ("Hi, eating lunch at my desk again.", "Hi, Ines. Anything on your mind?"),
            ("Afternoon slump. Talk to me.", "Afternoon. Shall we tackle something small first?")],
    "evening": [("Evening! Kids asleep, finally.", "Evening, Ines. Well done. What's on your mind?"),
                ("Hi, quick one before I collapse on the sofa.", "Hi. Go ahead."),
                ("Evening. Long day.", "Evening. Want to offload, or get something done?")],
}
MIDDLES = [
    ("Ugh, the bus was late again.", "Sorry to hear it. Did it throw off your plans much?"),
    ("Thanks, that's exactly what I needed.", "Glad it helped."),
    ("Ok, that worked.", "Good. Shout if it breaks again."),
    ("Hang on, someone at the door.", "No problem, I'll be here."),
    ("Back.", "Welcome back. Where were we?"),
    ("Sorry, distracted, Ada's telling me about dinosaurs.", "Dinosaurs win every time. Take your time."),
    ("Haha, fair enough.", "Ha. Anything else on your mind?"),
    ("Hmm, let me think about that.", "Take your time."),
    ("Makes sense.", "Good. Anything else?"),
]
CLOSERS = {
    "morning": [("Right, standup time. Later.", "Good luck, talk later."),
                ("Ok, off to work properly now.", "Have a good day, Ines.")],
    "day": [("Back to it. Thanks.", "Good luck with the afternoon."),
            ("Meeting now, bye.", "Bye, Ines.")],
    "evening": [("Right, I'm off for the night.", "Goodnight, Ines."),
                ("Bed. Thanks for the help.", "Sleep well.")],
}

# Some user turns move the clock on (the chat picks up later the same day).
CLOCK = {
    "Back. Standup ran long": "10:25",
    "Same thing, a stuck SFTP upload": "12:35",
    "Evening. Ada lost a glove": "18:40",
    "Goodnight. I'm going to try": "22:05",
    "My mum rang, she's had the date": "15:10",
}


def part_of_day(hour: int) -> str:
    return "morning" if hour < 11 else "day" if hour < 17 else "evening"


def _conversion(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(4)
    if kind == 0:
        oz = rng.choice([4, 6, 8, 10, 12, 16])
        return (f"How many grams is {oz} ounces of flour?",
                f"About {round(oz * 28.35)} grams ({oz} x 28.35).")
    if kind == 1:
        f = rng.choice([350, 375, 400, 425, 450])
        c = round((f - 32) * 5 / 9)
        return (f"The recipe says {f} Fahrenheit, what's that in Celsius?",
                f"About {c} degrees Celsius, or {c - 20} in a fan oven.")
    if kind == 2:
        km = rng.choice([5, 10, 21.1, 42.2])
        miles = round(km / 1.609, 1)
        return (f"How far is {km} km in miles?", f"{km} km is about {miles} miles.")
    cups = rng.choice([1, 2, 3])
    return (f"How many millilitres in {cups} cup{'s' if cups > 1 else ''} of milk?",
            f"About {cups * 240} ml, using the 240 ml cup.")


def _sum(rng: random.Random) -> tuple[str, str]:
    per_day = rng.choice([6, 7.5, 9, 12])
    days = rng.choice([3, 4, 5])
    weeks = rng.choice([4, 6, 8, 12])
    total = per_day * days * weeks
    return (f"If something costs {per_day} a day, {days} days a week, what's that over {weeks} weeks?",
            f"{per_day} x {days} x {weeks} = {total:g}.")


def _timezone(rng: random.Random) -> tuple[str, str]:
    hour = rng.choice([8, 9, 10, 14, 16, 18])
    city, offset = rng.choice([("New York", -5), ("Berlin", 1), ("Bangalore", 5.5), ("Lisbon", 0)])
    other = hour + offset
    hh = int(other) % 24
    mm = "30" if other % 1 else "00"
    return (f"If it's {hour}:00 here, what time is it in {city}?",
            f"{hh}:{mm} in {city} (winter time).")


GENERATORS = (_conversion, _sum, _timezone)


def build(rng: random.Random) -> tuple[list[dict], list[dict]]:
    """Assemble turns and questions. Returns (turns, questions) as JSON-ready dicts."""
    # Group fact exchanges into blocks that stay together: a block is one
    # exchange plus the exchanges that continue it.
    blocks_by_session: dict[str, list[list[tuple[str, str, list[str]]]]] = {}
    for sess, user, assistant, phrases in FACT_EXCHANGES:
        continues = user.startswith("+")
        user = user.lstrip("+")
        missing = [p for p in phrases if p.lower() not in user.lower()]
        if missing:
            raise ValueError(f"key phrases {missing} do not occur in the user turn {user!r}")
        blocks = blocks_by_session.setdefault(sess, [])
        if continues:
            if not blocks:
                raise ValueError(f"{user!r} continues nothing: it is the first exchange of {sess}")
            blocks[-1].append((user, assistant, phrases))
        else:
            blocks.append([(user, assistant, phrases)])
    filler = list(FILLER)
    rng.shuffle(filler)  # each hand-written exchange is used at most once

    turns: list[dict] = []
    turn_id = 0
    for sess, start, target in SESSIONS:
        blocks = blocks_by_session.get(sess, [])
        n_pairs = target // 2
        n_fact_pairs = sum(len(b) for b in blocks)
        n_middle_filler = n_pairs - 2 - n_fact_pairs
        if n_middle_filler < 0:
            raise ValueError(f"session {sess} has too many fact exchanges for {target} turns")
        clock = datetime.strptime(start, "%Y-%m-%d %H:%M")
        # Fact blocks keep their order; filler goes in between them at seeded
        # random positions so facts arrive in passing, not in one go. The first
        # and last pairs are an opener and a closer.
        block_at = set(rng.sample(range(n_middle_filler + len(blocks)), len(blocks)))
        plan: list[tuple[str, str, list[str]] | None] = []  # None = a filler pair
        block_iter = iter(blocks)
        for i in range(n_middle_filler + len(blocks)):
            plan.extend(next(block_iter) if i in block_at else [None])
        plan = [None] + plan + [None]
        middles = list(MIDDLES)
        rng.shuffle(middles)  # no small-talk line twice in a session
        for i, exchange in enumerate(plan):
            phrases: list[str] = []
            if i == 0:
                user, assistant = rng.choice(OPENERS[part_of_day(clock.hour)])
            elif i == len(plan) - 1:
                user, assistant = rng.choice(CLOSERS[part_of_day(clock.hour)])
            elif exchange is not None:
                user, assistant, phrases = exchange
                for prefix, hhmm in CLOCK.items():
                    if user.startswith(prefix):
                        later = datetime.combine(clock.date(), datetime.strptime(hhmm, "%H:%M").time())
                        clock = max(clock, later)
            else:
                pick = rng.random()
                if pick < 0.15 and middles:
                    user, assistant = middles.pop()
                elif pick < 0.45 or not filler:
                    user, assistant = rng.choice(GENERATORS)(rng)
                else:
                    user, assistant = filler.pop()
            for role, text, fx in (("user", user, phrases), ("assistant", assistant, [])):
                turn_id += 1
                clock += timedelta(seconds=rng.randint(30, 420) if role == "user" else rng.randint(3, 15))
                turns.append({
                    "session_id": sess,
                    "turn_id": turn_id,
                    "role": role,
                    "timestamp": clock.isoformat(),
                    "content": text,
                    "facts": fx,
                })

    # Gold turns: the user turn that states the phrase, plus the assistant turn
    # that echoes it right after (both hold the answer).
    questions = []
    for n, (question, answer, phrase) in enumerate(QUESTIONS, start=1):
        low = phrase.lower()
        gold = [t["turn_id"] for t in turns if low in t["content"].lower()]
        stated = [t for t in turns if phrase in t["facts"]]
        if not stated:
            raise ValueError(f"question {question!r}: no turn states {phrase!r}")
        stating = {t["turn_id"] for t in stated}
        stray = [tid for tid in gold if tid not in stating and tid - 1 not in stating]
        if stray:
            raise ValueError(f"question {question!r}: phrase {phrase!r} also appears in unrelated turns {stray}")
        late = [t["turn_id"] for t in turns if t["turn_id"] in gold and t["session_id"] not in EARLY_SESSIONS]
        if late:
            raise ValueError(f"question {question!r}: phrase {phrase!r} also appears in late turns {late}")
        questions.append({
            "id": f"cq-{n:03d}",
            "question": question,
            "answer": answer,
            "key_phrase": phrase,
            "gold_turn_ids": gold,
            "session_id": stated[0]["session_id"],
        })
    return turns, questions
