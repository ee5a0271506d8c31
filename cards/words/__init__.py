"""A text's words, read without a model: the words lexical matching sees
(lexical: NFKC, case folding, Traditional read as Simplified, Chinese in
runs) and what a question names (understand: the labels by key or synonym,
whether it speaks of the asker, the runs of words that could be a name).
Recall, ask and the write path (a card's stored words) read them."""
