"""The weekly upkeep job's reads (DESIGN §10): what it would propose for a scope
(find.py), and each proposal's reason in words people read (why.py). The writes
— keeping a run's counts, the proposals, and applying one a person approved — are
review/services/upkeep.py."""
