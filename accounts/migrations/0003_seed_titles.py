"""The 23 titles of seed 000 (docs/rules.md §3.6, §7.4). Simplified names from docs/rules.md, traditional
names as the seed writes them, English names chosen for this club. 包身工 is "below 30": its
threshold is 0 and title_for() also gives it to negative scores."""

from django.db import migrations

TITLES = [
    (0, "包身工", "包身工", "Bonded Labourer"),
    (30, "短工", "短工", "Day Labourer"),
    (60, "长工", "長工", "Farmhand"),
    (90, "佃户", "佃戶", "Tenant Farmer"),
    (180, "贫农", "貧農", "Poor Peasant"),
    (320, "渔夫", "漁夫", "Fisherman"),
    (530, "猎人", "獵人", "Hunter"),
    (840, "中农", "中農", "Middle Peasant"),
    (1150, "富农", "富農", "Rich Peasant"),
    (1600, "掌柜", "掌櫃", "Shopkeeper"),
    (2300, "商人", "商人", "Merchant"),
    (3450, "衙役", "衙役", "Yamen Runner"),
    (5000, "小财主", "小財主", "Small Moneybags"),
    (6900, "大财主", "大財主", "Great Moneybags"),
    (9200, "小地主", "小地主", "Small Landlord"),
    (12600, "大地主", "大地主", "Great Landlord"),
    (17700, "知县", "知縣", "County Magistrate"),
    (23000, "通判", "通判", "Prefectural Judge"),
    (32200, "知府", "知府", "Prefect"),
    (46000, "总督", "總督", "Viceroy"),
    (69000, "巡抚", "巡撫", "Grand Governor"),
    (103000, "丞相", "丞相", "Chancellor"),
    (161000, "帝王", "帝王", "Emperor"),
]


def seed(apps, schema_editor):
    Title = apps.get_model("accounts", "Title")
    for threshold, hans, hant, en in TITLES:
        Title.objects.update_or_create(
            threshold=threshold, defaults={"name_hans": hans, "name_hant": hant, "name_en": en}
        )


def unseed(apps, schema_editor):
    Title = apps.get_model("accounts", "Title")
    Title.objects.filter(threshold__in=[t[0] for t in TITLES]).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_ledger_append_only_triggers")]

    operations = [migrations.RunPython(seed, unseed)]
