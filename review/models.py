"""The review queue arrives with extraction (candidate cards, proposed rules,
duplicate entities); this app holds no tables yet."""
