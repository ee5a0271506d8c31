"""Reads of the card store, each a plain function of the principal, in a module named for what it reads."""
