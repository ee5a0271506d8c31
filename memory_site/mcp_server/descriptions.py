"""What a model reads: the memory contract (the server's instructions and its
prompt) and each tool's description — when to call it, what it returns, an
example."""

CONTRACT = """\
You have a long-term memory of the person you help, shared with their family or team (memory-site).
It holds small typed cards: states (where they live, their employer — one current value, the old kept
as history), events (a trip, a dentist visit — written once), knowledge, preferences and guesses.

Before answering anything about the person's past, their people, plans or preferences, look it up:
`ask` for a plain question ("Where does Kai live?"), `recall` for cards about a topic, `context` for a
block to put in your prompt at the start of a conversation (it carries how to talk to the person;
`profile` gives that alone, with a guess always marked as a guess). Each answer says how it knows: recorded,
derived (with its evidence), guessed, or no evidence. Never present a guess or a derived answer as
something the person told you, and say so when memory has no evidence.

Remember what lasts: facts about the person and their people (home, work, family, allergies,
birthdays), events with their date ("yesterday" is fine: pass the message's time as `reference_time`),
stated preferences, goals and boundaries. One fact per card, in the person's own terms. Something you
inferred but were not told is a `hypothesis` with a confidence; it is never a fact until the person
confirms it. When the person says an event's date, place or description was said wrongly ("the wedding
was Sunday, not Saturday"), `correct` that event: remembering it again would record a second one.

Never store: passing moods or one-off frustrations, guesses about motives, raw conversation logs,
passwords or other secrets. Sensitive facts — health, religion, sexuality, politics, ethnicity and
the like — only after asking the person and hearing yes; then pass `consent: true`. If a write is
refused with `needs_consent`, ask first; with `excluded`, do not store it.

Check-ins: at most one question per reply. `next_probe` offers one guess to confirm; ask it in your own
words, then relay the answer with `confirm` or `reject`. Never ask the same question twice. When
`context` or `recall` reports an aging fact or a contradiction, it may carry one question: ask it
once, and only if it fits the conversation.

Pass the conversation's id as `session` on every call. Scopes can be named by id, by name or as
"personal", "family" or "team" (the person's one scope of that kind); `list_scopes` shows them. Reads
(`recall`, `context`, `ask`, `count`) without a scope cover everything the person reads: leave it out
unless the person means one place. A refusal comes back as a tool error whose `code` says why
(`unknown_label` with suggestions, `validation_error` with fields, `not_found`, `forbidden`…): fix the
call, or tell the person plainly.
"""

TOOLS = {
    "remember": """Store one fact, event, preference or guess the person told you (or that you inferred, as
a hypothesis). Call it when something lasting is said. Returns {"outcome": "inserted|superseded|
reinforced|duplicate", "card": {…}, "current", "now", "closed", "note"}; a new address supersedes the old
one, which stays as history. Give `when` only for when it began ("I moved here last month"); "I live in
Kyoto" needs none. If `current` is false, tell the person what `note` says.
With a propose-only token it returns {"outcome": "proposed"}: it waits for the person's review.
An event told wrongly before (its date, place or description) is fixed with `correct`, not remembered again.
Example: {"scope": "personal", "kind": "state", "subject": "me", "label": "address", "value": "Kyoto",
"text": "Lives in Kyoto", "when": "last Friday", "reference_time": "2026-05-08T16:44:10+08:00"}""",
    "remember_many": """Store several cards at once, all or nothing (up to 1000). Each is shaped as
`remember` takes it. Returns {"results": [outcome, …]} in order. Example: {"cards": [{"scope": 12,
"kind": "event", "subject": "me", "label": "gym", "text": "Went to the gym", "when": "yesterday"}]}""",
    "recall": """Find the cards most relevant to a topic, best first. Use it before answering about the
person's past or when you need the details behind something. Time words in the query ("last weekend")
narrow events to that time. Returns {"results": [{"card", "similarity", "lexical", "decay", "score"}],
"no_evidence", "aging_facts", "contradictions"}; no_evidence true means nothing fits: say you do not
know. Example: {"query": "what did we do last weekend?"}""",
    "context": """A ready memory block for your prompt: the current time and the facts that matter for the
message, within a token budget, with at most one check-in question. Call it once at the start of a
conversation or topic. Returns {"prompt", "cards", "tokens"}. Example: {"query": "planning a trip to Lisbon",
"budget": 1500}""",
    "profile": """How to talk to the person: their tone, brevity, workflow style and decision style,
what to keep to (diet, allergies, what they avoid) and their boundaries. Call it at the start of a
conversation, or let `context` carry it. Returns {"items": [{"group": "style|constraint|boundary",
"label", "value", "tier": "recorded|guessed", "tag", "confidence", "guidance", "card"}]}. A guessed
item is only a guess: adapt to it gently and never tell the person it is what they said; a boundary is
always honoured. Example: {"scope": "personal"}""",
    "ask": """Answer a plain question from memory, without any model: "Where does Kai live?", "When did I
last see the dentist?", "How many times did we go hiking this year?", 我住在哪裡? Returns {"answer" (one
sentence in the question's language), "tier": "recorded|derived|guessed|no_evidence", "understood",
"values", "evidence", "chain"}. Repeat the answer's certainty as given. Example: {"question":
"Where does my mother live?"}""",
    "count": """Count events of one kind, optionally for one person and a time range: "how many times did I
go to the gym last month". Returns {"count", "undated", "at_least", "exact", "cards"}; when exact is
false, say "at least". Example: {"label": "gym", "subject": "me", "when": "last month"}""",
    "forget": """Erase memory at once and completely, when the person asks you to forget: one card (`card`),
one label's whole timeline for a subject (`scope`, `subject`, `label`), or everything about a subject in
a scope (`scope`, `subject`). Returns a receipt of counts, never the content. Confirm with the person
before erasing more than one card. Example: {"scope": "personal", "subject": "me", "label": "address"}""",
    "ingest": """Hand over a finished conversation for extraction: a model proposes cards from it and they
wait in the person's review queue (nothing is stored as fact until a person approves). Returns
{"job", "status"…} at once. Example: {"scope": "personal", "session": "chat-41", "messages": [{"role":
"user", "text": "We moved to Kyoto last Friday", "at": "2026-05-08T16:44:10+08:00"}]}""",
    "next_probe": """One guess about the person to check with them, or {"probe": null} when there is none.
Ask it in your own words, at most one per reply, and only when it fits; then call `confirm` or `reject`
with their answer. Never ask the same one twice. Example: {"scope": "personal"}""",
    "confirm": """The person said a guess (from `next_probe`) is true: it becomes a fact (or preference) with
their words as its source. Returns the stated card. Example: {"card": 881, "quote": "Yes, I am
vegetarian", "session": "chat-41"}""",
    "reject": """The person said a guess (from `next_probe`) is wrong: it is discarded, their reason kept.
Example: {"card": 881, "reason": "No, I just skipped meat that day"}""",
    "correct": """When the person says an event's date, place or description was said wrongly ("Ana's
wedding was Sunday, not Saturday", "it was in Porto, not Lisbon"): correct that event — never remember a
second one. Give its card id and only what was wrong: `when` (time words are read against
`reference_time`), `object` (the right place, person or thing) and/or `text`. The same card changes and
the old value is kept in its history. Returns the card with "corrected": ["when", …] (empty when it
already said so). Refusals: `not_an_event` for a state (remember its new value instead: it supersedes the
old), `same_event_exists` with `card` when that event is already recorded for that day (ask the person,
then forget the wrong one). Example: {"card": 412, "when": "Sunday", "reference_time":
"2026-05-08T16:44:10+08:00", "reason": "it was Sunday, not Saturday"}""",
    "list_scopes": """The scopes this token may read and write: [{"id", "name", "kind", "parent", "role",
"relation"}]. Call it when you do not know which scope to use: "personal" is the person's own; a family
or team scope is shared with its members.""",
}
