"""Labels as pages name them: English words, or Chinese for every built-in label."""

import pytest
from django.template import Context, Template
from django.utils import translation

from cards.words.label_names import label_name
from cards.models import Label
from cards.text import CJK

pytestmark = pytest.mark.django_db


def test_every_built_in_label_has_a_chinese_name_and_an_english_one():
    for label in Label.objects.all():
        assert label_name(label.key, "en") == label.key.replace("_", " ")
        chinese = label_name(label.key, "zh-hant")
        assert CJK.search(chinese) and not any(c.isascii() and c.isalpha() for c in chinese), (label.key, chinese)


def test_a_chinese_name_is_traditional_and_follows_the_page_language():
    assert label_name("phone", "zh-hant") == "電話"
    with translation.override("zh-hant"):
        assert Template("{% load label_names %}{{ key|label_name }}").render(Context({"key": "phone"})) == "電話"
    with translation.override("en"):
        assert Template("{% load label_names %}{{ key|label_name }}").render(Context({"key": "home_address"})) \
            == "home address"


def test_a_label_nobody_registered_reads_as_its_key():
    assert label_name("favourite_tea", "zh-hant") == "favourite tea"


def test_simplified_chinese_pages_name_labels_in_simplified_script():
    assert label_name("phone", "zh-hans") == "电话"
    assert label_name("weight", "zh-hans") == "体重" and label_name("weight", "zh-hant") == "體重"
