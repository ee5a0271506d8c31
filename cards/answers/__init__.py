"""Answers that say how they know (DESIGN §7), with no model call: the same
question gives the same answer.

- derive: approved rules over the facts a reader may see, at question time;
- answer: the tiers (recorded, derived, guessed, no evidence) for a bound subject;
- count: code does the counting;
- answer_read, count_read: the answer and the count as a reader gets them
  (a function of the principal, shared by the API and the ask page);
- ask, ask_subject, ask_words: one question in plain words, its subject and
  its words, answered by the reads above;
- rule_preview: what a rule would derive before anyone approves it.

Each module imports only those below it (the contract in pyproject.toml)."""
