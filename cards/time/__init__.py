"""Time (DESIGN §5): expressions → absolute intervals [start, end) with a
precision, in the speaker's day.

`when` is the entry point the rest of the code uses; the other modules hold the
rules, each importing only those below it (the contract in pyproject.toml):
base (the interval and calendar arithmetic), anchor (whose day: the zone),
english, chinese, written (absolute written dates, partly via dateparser),
resolve (the order they are tried in) and find (a time expression inside a
question)."""
