"""Club life (issue #7) strings for the zh_Hans / zh_Hant / en catalogs: run after
makemessages, like scripts/translations.py (which it runs with this table added), and fills
the plural entries of the club's templates too.

    python manage.py makemessages -l zh_Hans -l zh_Hant -l en --no-location --no-wrap \
        --ignore='.venv/*' --ignore='tests/*' --ignore='bench/*' --ignore='games/engine/*'
    python scripts/translations_club.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import translations

CLUB: dict[str, tuple[str, str]] = {
    # phrases (quick chat)
    "Hurry up!": ("快点吧！", "快點吧！"),
    "Nice cards!": ("好牌！", "好牌！"),
    "Great teamwork!": ("合作愉快！", "合作愉快！"),
    "Sorry!": ("不好意思！", "不好意思！"),
    "One more hand!": ("再来一局！", "再來一局！"),
    "Thanks!": ("谢谢！", "謝謝！"),
    # chat refusals
    "A chat message has at most %(limit)d characters.": (
        "聊天消息最多 %(limit)d 个字。",
        "聊天訊息最多 %(limit)d 個字。",
    ),
    "A chat message cannot hold control characters such as line breaks or tabs.": (
        "聊天消息不能包含换行、制表符等控制字符。",
        "聊天訊息不能包含換行、定位字元等控制字元。",
    ),
    "Free text chat is off at this club: pick a phrase.": (
        "本俱乐部未开放自由聊天：请选择一句快捷语。",
        "本俱樂部未開放自由聊天：請選擇一句快捷語。",
    ),
    "Pick a phrase to send.": ("请选择要发送的快捷语。", "請選擇要發送的快捷語。"),
    "Unknown chat phrase.": ("没有这句快捷语。", "沒有這句快捷語。"),
    "You are chatting too fast: at most %(count)d messages in %(seconds)d seconds.": (
        "发言太快了：%(seconds)d 秒内最多 %(count)d 条。",
        "發言太快了：%(seconds)d 秒內最多 %(count)d 則。",
    ),
    "Your account is suspended: you cannot sit down. Please contact the club's operators.": (
        "你的账号已被暂停：无法入座。请联系俱乐部管理员。",
        "你的帳號已被暫停：無法入座。請聯絡俱樂部管理員。",
    ),
    # table page
    "Spectators": ("观众", "觀眾"),
    "Quick chat": ("快捷聊天", "快捷聊天"),
    "Message": ("消息", "訊息"),
    "Send": ("发送", "發送"),
    "Settings": ("设置", "設定"),
    "Tables in play": ("正在进行的牌桌", "正在進行的牌桌"),
    "Watch": ("观战", "觀戰"),
    # leaderboard
    "Leaderboard": ("排行榜", "排行榜"),
    "Ranking": ("榜单", "榜單"),
    "Score": ("积分", "積分"),
    "Beans won": ("赢得欢乐豆", "贏得歡樂豆"),
    "Period": ("时间", "時間"),
    "Last 7 days": ("最近 7 天", "最近 7 天"),
    "Last 30 days": ("最近 30 天", "最近 30 天"),
    "All time": ("全部", "全部"),
    "Variant": ("玩法", "玩法"),
    "All variants": ("全部玩法", "全部玩法"),
    "Show": ("显示", "顯示"),
    "Score won in this variant, all time.": (
        "在此玩法中累计赢得的积分。",
        "在此玩法中累計贏得的積分。",
    ),
    "Total score; the title follows it. The period does not apply.": (
        "总积分，称号随之而定；不按时间筛选。",
        "總積分，稱號隨之而定；不按時間篩選。",
    ),
    "Beans won or lost at the tables, after house take and rake.": (
        "牌桌上的欢乐豆输赢，已扣除台费和抽成。",
        "牌桌上的歡樂豆輸贏，已扣除台費和抽成。",
    ),
    "Players only: bots are never ranked.": (
        "只排玩家，机器人不上榜。",
        "只排玩家，機器人不上榜。",
    ),
    "Player": ("玩家", "玩家"),
    "Title": ("称号", "稱號"),
    "Beans": ("欢乐豆", "歡樂豆"),
    "Hands": ("局数", "局數"),
    "No hands in this period yet.": ("这段时间还没有牌局。", "這段時間還沒有牌局。"),
    # profile
    "This account is suspended.": ("该账号已被暂停。", "該帳號已被暫停。"),
    "Progress to the next title": ("距下一个称号的进度", "距下一個稱號的進度"),
    "Score %(s)s": ("积分 %(s)s", "積分 %(s)s"),
    "%(n)s more to %(t)s": ("还差 %(n)s 升为%(t)s", "還差 %(n)s 升為%(t)s"),
    "Record": ("战绩", "戰績"),
    "Hands played": ("总局数", "總局數"),
    "Hands won": ("胜局", "勝局"),
    "Springs": ("春天", "春天"),
    "Biggest win": ("最大一笔赢豆", "最大一筆贏豆"),
    "Side": ("阵营", "陣營"),
    "Played": ("局数", "局數"),
    "Won": ("胜", "勝"),
    "Landlord side": ("地主方", "地主方"),
    "Farmer side": ("农民方", "農民方"),
    "Recent hands": ("最近牌局", "最近牌局"),
    "Finished": ("结束时间", "結束時間"),
    "Room": ("房间", "房間"),
    "won": ("胜", "勝"),
    "Spring": ("春天", "春天"),
    "Replay": ("回放", "回放"),
    "No finished hands yet.": ("还没有打完的牌局。", "還沒有打完的牌局。"),
    # settings
    "Browser default": ("跟随浏览器", "跟隨瀏覽器"),
    "Settings saved.": ("设置已保存。", "設定已儲存。"),
    "Sounds are made by your browser: a short tone for your turn, bombs and springs.": (
        "声音由浏览器合成：轮到你、炸弹和春天时各有一声短音。",
        "聲音由瀏覽器合成：輪到你、炸彈和春天時各有一聲短音。",
    ),
    "Save": ("保存", "儲存"),
    "My public profile": ("我的公开资料", "我的公開資料"),
    "Small": ("小", "小"),
    "Medium": ("中", "中"),
    "Large": ("大", "大"),
    "card size": ("牌面大小", "牌面大小"),
    "sound": ("声音", "聲音"),
    "auto-pass": ("自动不出", "自動不出"),
    "Pass by yourself when you cannot beat the cards on the table.": (
        "管不上时自动选择“不出”。",
        "管不上時自動選擇「不出」。",
    ),
    "language": ("语言", "語言"),
    # operators
    "Club life": ("俱乐部", "俱樂部"),
    "Fair-play signals": ("公平竞技信号", "公平競技信號"),
    "fair-play signals": ("公平竞技信号", "公平競技信號"),
    "Home": ("首页", "首頁"),
    "Signals are hints for a human review, not proof. Thresholds are settings (DDZ_FAIRPLAY_*).": (
        "信号只是供人工复核的线索，并非证据。阈值见设置项 DDZ_FAIRPLAY_*。",
        "信號只是供人工複核的線索，並非證據。閾值見設定項 DDZ_FAIRPLAY_*。",
    ),
    "Accounts that sit together unusually often": ("异常频繁同桌的账号", "異常頻繁同桌的帳號"),
    "Lopsided bean flows between two accounts": (
        "两个账号之间单向的欢乐豆流动",
        "兩個帳號之間單向的歡樂豆流動",
    ),
    "Accounts sharing an IP address at one table": (
        "同一牌桌上共用 IP 地址的账号",
        "同一牌桌上共用 IP 位址的帳號",
    ),
    "Players who often time out or leave mid-hand": (
        "经常超时或中途离开的玩家",
        "經常逾時或中途離開的玩家",
    ),
    "Accounts": ("账号", "帳號"),
    "Details": ("详情", "詳情"),
    "suspended": ("已暂停", "已暫停"),
    "Suspend": ("暂停账号", "暫停帳號"),
    "Nothing to report.": ("没有需要关注的情况。", "沒有需要關注的情況。"),
    "%(n)s hands together (%(p)s%% of the less active one's hands)": (
        "同桌 %(n)s 局（占较少一方牌局的 %(p)s%%）",
        "同桌 %(n)s 局（佔較少一方牌局的 %(p)s%%）",
    ),
    "%(b)s beans to the second account over %(n)s hands against each other; it won %(r)s of them": (
        "对战 %(n)s 局中，共有 %(b)s 欢乐豆流向第二个账号；它赢了其中 %(r)s 局",
        "對戰 %(n)s 局中，共有 %(b)s 歡樂豆流向第二個帳號；它贏了其中 %(r)s 局",
    ),
    "%(ip)s at table %(t)s; %(n)s hands together": (
        "%(ip)s，牌桌 %(t)s；同桌 %(n)s 局",
        "%(ip)s，牌桌 %(t)s；同桌 %(n)s 局",
    ),
    "%(f)s of %(n)s hands (%(p)s%%): %(t)s with timeouts, %(l)s left or auto-played": (
        "%(n)s 局中有 %(f)s 局（%(p)s%%）：%(t)s 局超时，%(l)s 局离开或托管",
        "%(n)s 局中有 %(f)s 局（%(p)s%%）：%(t)s 局逾時，%(l)s 局離開或託管",
    ),
    "Suspend %(name)s": ("暂停 %(name)s 的账号", "暫停 %(name)s 的帳號"),
    "%(name)s is suspended.": ("%(name)s 已被暂停。", "%(name)s 已被暫停。"),
    "%(name)s will no longer be able to sit down; his beans and history stay as they are. "
    "He is stood up at his tables.": (
        "%(name)s 将无法再入座；欢乐豆和历史记录保持不变。他会被请离所在的牌桌。",
        "%(name)s 將無法再入座；歡樂豆和歷史紀錄保持不變。他會被請離所在的牌桌。",
    ),
    "Lift the selected suspensions": ("解除所选的暂停", "解除所選的暫停"),
    "Lifted %(count)d suspension(s).": ("已解除 %(count)d 个暂停。", "已解除 %(count)d 個暫停。"),
    # model names
    "seat": ("座位", "座位"),
    "table": ("牌桌", "牌桌"),
    "Table %(n)s": ("%(n)s 号桌", "%(n)s 號桌"),
    "hand outcome": ("牌局结果", "牌局結果"),
    "hand outcomes": ("牌局结果", "牌局結果"),
    "side": ("阵营", "陣營"),
    "multiplier": ("倍数", "倍數"),
    "spring": ("春天", "春天"),
    "finished": ("结束时间", "結束時間"),
    "player settings": ("玩家设置", "玩家設定"),
    "table socket": ("牌桌连接", "牌桌連線"),
    "table sockets": ("牌桌连接", "牌桌連線"),
    "chat message": ("聊天消息", "聊天訊息"),
    "chat messages": ("聊天消息", "聊天訊息"),
    "phrase": ("快捷语", "快捷語"),
    "text": ("文字", "文字"),
    "connection record": ("连接记录", "連線紀錄"),
    "connection records": ("连接记录", "連線紀錄"),
    "IP address": ("IP 地址", "IP 位址"),
    "seated": ("已入座", "已入座"),
    "last seen": ("最近出现", "最近出現"),
    "suspension": ("账号暂停", "帳號暫停"),
    "suspensions": ("账号暂停", "帳號暫停"),
    "suspended at": ("暂停时间", "暫停時間"),
    # the table screen a player expects (issue #19)
    "Pair of big jokers": ("对大王", "對大王"),
    "Pair of small jokers": ("对小王", "對小王"),
    "Menu": ("菜单", "選單"),
    "Your beans": ("我的欢乐豆", "我的歡樂豆"),
    "Multiple": ("倍数", "倍數"),
    "Points": ("分数", "分數"),
    "bid %(v)s": ("叫 %(v)s 分", "叫 %(v)s 分"),
    "doubled ×2": ("加倍 ×2", "加倍 ×2"),
    "revealed ×2": ("亮身份 ×2", "亮身份 ×2"),
    "spring ×2": ("春天 ×2", "春天 ×2"),
    "anti-spring ×2": ("反春 ×2", "反春 ×2"),
    "capped at %(v)s": ("封顶 %(v)s", "封頂 %(v)s"),
    "the farmers' stakes, %(v)s": ("农民注额之和 %(v)s", "農民注額之和 %(v)s"),
    "share ×%(v)s": ("份额 ×%(v)s", "份額 ×%(v)s"),
    "grabs: %(v)s": ("抢 %(v)s 次", "搶 %(v)s 次"),
    "open solo ×2": ("明独打 ×2", "明獨打 ×2"),
    "city scheme: 2 to that power": ("同城方案：2 的该次方", "同城方案：2 的該次方"),
    "1 point": ("1 分", "1 分"),
    "a bomb ×2": ("炸弹 ×2", "炸彈 ×2"),
    "%(n)s bombs ×%(f)s": ("%(n)s 个炸弹 ×%(f)s", "%(n)s 個炸彈 ×%(f)s"),
    "a double ×2": ("加倍 ×2", "加倍 ×2"),
    "%(n)s doubles ×%(f)s": ("%(n)s 次加倍 ×%(f)s", "%(n)s 次加倍 ×%(f)s"),
    "Your stake": ("我的注额", "我的注額"),
    "First out: %(name)s": ("头游：%(name)s", "頭遊：%(name)s"),
    "Out first": ("头游", "頭遊"),
    "default: %(value)s": ("默认：%(value)s", "預設：%(value)s"),
    "A private table's host may change “%(option)s”": (
        "私人牌桌的桌主可以更改“%(option)s”",
        "私人牌桌的桌主可以更改「%(option)s」",
    ),
    "Rule options: %(variant)s": ("规则选项：%(variant)s", "規則選項：%(variant)s"),
    "Used when the room's variant is this one.": (
        "房间玩法为此玩法时生效。",
        "房間玩法為此玩法時生效。",
    ),
    "hand in play": ("进行中的牌局", "進行中的牌局"),
    "Free the selected seats": ("让选中的座位空出", "讓選中的座位空出"),
    "Table %(t)s, seat %(n)s: %(why)s": (
        "%(t)s 号桌 %(n)s 号座：%(why)s",
        "%(t)s 號桌 %(n)s 號座：%(why)s",
    ),
    "Freed %(n)d seat(s).": ("已空出 %(n)d 个座位。", "已空出 %(n)d 個座位。"),
    "deadline passed": ("已超过截止时间", "已超過截止時間"),
    "record": ("记录", "記錄"),
    "public once the hand is over": ("本局结束后公开", "本局結束後公開"),
    (
        "The whole table: one double doubles every stake. Each player: a double doubles "
        "only the stakes of the player who chose it, as in classic three-player."
    ): (
        "全桌：一人加倍，所有人的注额都翻倍。每位玩家：加倍只翻倍选择加倍者自己的注额，与经典三人斗地主相同。",
        "全桌：一人加倍，所有人的注額都翻倍。每位玩家：加倍只翻倍選擇加倍者自己的注額，與經典三人鬥地主相同。",
    ),
    "Level: a unit is base × D. City: a unit is base × 2 to the power D.": (
        "等级方案：单位 = 基础分 × D。同城方案：单位 = 基础分 × 2 的 D 次方。",
        "等級方案：單位 = 基礎分 × D。同城方案：單位 = 基礎分 × 2 的 D 次方。",
    ),
    (
        "Permissive: four-with-two may take a pair or both jokers as its singles, and a "
        "plane's singles may share a rank. Strict: kickers are distinct singles or "
        "natural pairs."
    ): (
        "宽松：四带二的两张单牌可以是一对或大小王，飞机带的单牌可以同点数。严格：带牌必须是不同的单张或真对子。",
        "寬鬆：四帶二的兩張單牌可以是一對或大小王，飛機帶的單牌可以同點數。嚴格：帶牌必須是不同的單張或真對子。",
    ),
    (
        "Four jokers: all four jokers are the nuke, a pair of one joker is a bomb. Big "
        "and small jokers: one small and one big joker are the nuke."
    ): (
        "四王：四张王一起是核弹，对大王、对小王是炸弹。大小王：一张小王加一张大王是核弹。",
        "四王：四張王一起是核彈，對大王、對小王是炸彈。大小王：一張小王加一張大王是核彈。",
    ),
    "The landlord may call a card whose other copy he holds himself, and plays alone.": (
        "地主可以叫自己持有另一张的牌，独自打一家。",
        "地主可以叫自己持有另一張的牌，獨自打一家。",
    ),
    "A plane without kickers may be played as a hand's last play.": (
        "不带牌的飞机可以作为最后一手打出。",
        "不帶牌的飛機可以作為最後一手打出。",
    ),
    "A joker may be the single kicker of a triple or of a plane.": (
        "王可以作为三带一或飞机的单张带牌。",
        "王可以作為三帶一或飛機的單張帶牌。",
    ),
    "Yes: every bomb played adds its bonus. No: only the winners' own bombs do.": (
        "是：打出的每个炸弹都加分。否：只计赢家自己打出的炸弹。",
        "是：打出的每個炸彈都加分。否：只計贏家自己打出的炸彈。",
    ),
}

# msgid -> (simplified, traditional): one form (Chinese has no plural forms)
PLURALS: dict[str, tuple[str, str]] = {
    "%(n)s spectator": ("%(n)s 名观众", "%(n)s 名觀眾"),
    "%(n)s bomb counted": ("计入 %(n)s 个炸弹", "計入 %(n)s 個炸彈"),
    "%(n)s more that does not count": ("另有 %(n)s 个不计", "另有 %(n)s 個不計"),
}

PLURAL_ENTRY = re.compile(
    r'^msgid "(?P<id>(?:[^"\\]|\\.)*)"\nmsgid_plural "(?P<pl>(?:[^"\\]|\\.)*)"\n'
    r'(?P<strs>(?:msgstr\[\d\] ".*"\n?)+)',
    re.MULTILINE,
)


def fill_plurals(path: Path, locale: str) -> None:
    text = path.read_text(encoding="utf-8")

    def replace(match: re.Match[str]) -> str:
        msgid, plural = match.group("id"), match.group("pl")
        if msgid not in PLURALS:
            return match.group(0)
        column = translations.COLUMN.get(locale)
        forms = [msgid, plural] if column is None else [PLURALS[msgid][column]]
        body = "".join(f'msgstr[{i}] "{f}"\n' for i, f in enumerate(forms))
        return f'msgid "{msgid}"\nmsgid_plural "{plural}"\n{body}'

    path.write_text(PLURAL_ENTRY.sub(replace, text), encoding="utf-8")


def main() -> int:
    for msgid, pair in CLUB.items():
        translations.TABLE.setdefault(msgid, pair)
    root = Path(__file__).resolve().parent.parent / "locale"
    for locale in ("zh_Hans", "zh_Hant", "en"):
        fill_plurals(root / locale / "LC_MESSAGES" / "django.po", locale)
    status = translations.main()
    return status


if __name__ == "__main__":
    sys.exit(main())
