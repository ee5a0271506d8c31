"""The words lexical matching sees (cards/words/lexical.py): Traditional and Simplified
Chinese meet, Chinese is segmented, English plurals fold, function words go."""

from cards.words.lexical import lexemes, query_terms


def test_traditional_and_simplified_chinese_give_the_same_words():
    assert lexemes("小安在學校管弦樂團拉大提琴") == lexemes("小安在学校管弦乐团拉大提琴")
    assert {"管弦乐团", "乐团", "大提琴"} <= set(lexemes("小安在學校管弦樂團拉大提琴"))


def test_a_question_keeps_what_it_asks_about_and_drops_how_it_asks():
    assert query_terms("What languages does Kai speak?") == ("language", "kai", "speak")
    assert query_terms("Dana’s trips to Madeira in 2026") == ("dana", "trip", "madeira", "2026")
    assert query_terms("我住在哪裡？") == ("住",)


def test_mixed_text_and_full_width_forms():
    assert lexemes("下周的 ＲＥＬＥＡＳＥ 是谁负责？") == ("下周", "release", "负责")
    assert lexemes("Cafés, cafés!") == ("café", "café")
