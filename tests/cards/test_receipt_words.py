"""A forget receipt as the page says it, in the page's language (counts, never content)."""

from django.utils import translation

from cards.services.forget import Receipt


def test_a_receipt_reads_in_english_and_in_chinese():
    receipt = Receipt(cards=3, revisions=1, candidates=2)
    with translation.override("en"):
        assert receipt.words() == "3 cards, 2 review candidates and 1 revision"
        assert Receipt().words().startswith("nothing")
    with translation.override("zh-hant"):
        assert receipt.words() == "3 張卡片、2 項審核候選和 1 筆修訂"
        assert Receipt().words().startswith("沒有任何東西")
