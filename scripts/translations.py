"""Fill the zh_Hans / zh_Hant / en catalogs from one table (run after makemessages).

    python manage.py makemessages -l zh_Hans -l zh_Hant -l en --no-location --no-wrap \
        --ignore='.venv/*' --ignore='tests/*' --ignore='bench/*' --ignore='games/engine/*'
    python scripts/translations.py

Only empty msgstr entries are filled, so translations edited by hand in a .po file stay; a
msgid missing from the table is reported and left empty (it then shows in English).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# msgid: (simplified, traditional)
TABLE: dict[str, tuple[str, str]] = {
    "Change in beans": ("欢乐豆变动", "歡樂豆變動"),
    "Positive to credit, negative to debit.": (
        "正数为增加，负数为扣除。",
        "正數為增加，負數為扣除。",
    ),
    "Reason": ("原因", "原因"),
    "The change cannot be zero.": ("变动不能为零。", "變動不能為零。"),
    "Adjust beans (asks for a reason)": ("调整欢乐豆（需填写原因）", "調整歡樂豆（需填寫原因）"),
    "Adjusted %(count)d player(s).": ("已调整 %(count)d 位玩家。", "已調整 %(count)d 位玩家。"),
    "Adjust beans": ("调整欢乐豆", "調整歡樂豆"),
    "Club": ("俱乐部", "俱樂部"),
    "title": ("称号", "稱號"),
    "player": ("玩家", "玩家"),
    "house": ("庄家账户", "莊家帳戶"),
    "House intake": ("庄家收入", "莊家收入"),
    "Players and beans": ("玩家与欢乐豆", "玩家與歡樂豆"),
    "beans": ("欢乐豆", "歡樂豆"),
    "Cached balance; the ledger is the truth.": (
        "缓存余额；以账本为准。",
        "快取餘額；以帳本為準。",
    ),
    "score": ("积分", "積分"),
    "bot": ("机器人", "機器人"),
    "Bots never hold beans or scores.": (
        "机器人不持有欢乐豆和积分。",
        "機器人不持有歡樂豆和積分。",
    ),
    "Sign-up grant": ("注册赠送", "註冊贈送"),
    "Hand settlement": ("牌局结算", "牌局結算"),
    "House take": ("系统回收", "系統回收"),
    "Rake": ("抽成", "抽成"),
    "Operator adjustment": ("管理员调整", "管理員調整"),
    "Daily relief": ("每日救济", "每日救濟"),
    "Empty for the house account.": ("留空表示庄家账户。", "留空表示莊家帳戶。"),
    "change": ("变动", "變動"),
    "balance after": ("变动后余额", "變動後餘額"),
    "reason": ("原因", "原因"),
    "hand": ("牌局", "牌局"),
    "note": ("备注", "備註"),
    "operator": ("操作员", "操作員"),
    "time": ("时间", "時間"),
    "bean entry": ("欢乐豆流水", "歡樂豆流水"),
    "bean ledger": ("欢乐豆账本", "歡樂豆帳本"),
    "house intake": ("庄家收入", "莊家收入"),
    "detail": ("明细", "明細"),
    "hand settlement": ("牌局结算", "牌局結算"),
    "hand settlements": ("牌局结算", "牌局結算"),
    "threshold": ("积分门槛", "積分門檻"),
    "name (simplified Chinese)": ("名称（简体中文）", "名稱（簡體中文）"),
    "name (traditional Chinese)": ("名称（繁体中文）", "名稱（繁體中文）"),
    "name (English)": ("名称（英文）", "名稱（英文）"),
    "titles": ("称号", "稱號"),
    "Relief received. Good luck at the tables!": (
        "救济已到账，祝你牌运亨通！",
        "救濟已到帳，祝你牌運亨通！",
    ),
    "You have already claimed today's relief.": (
        "你今天已经领取过救济了。",
        "你今天已經領取過救濟了。",
    ),
    "Relief is only for players whose balance is below the floor.": (
        "只有余额低于救济线的玩家才能领取救济。",
        "只有餘額低於救濟線的玩家才能領取救濟。",
    ),
    "Simplified Chinese": ("简体中文", "簡體中文"),
    "Traditional Chinese": ("繁体中文", "繁體中文"),
    "English": ("英文", "英文"),
    "Stakes": ("底分与抽成", "底分與抽成"),
    "Timers": ("计时", "計時"),
    "effective minimum balance": ("实际入场门槛", "實際入場門檻"),
    "Games": ("游戏", "遊戲"),
    "Five-player Dou Dizhu": ("五人斗地主", "五人鬥地主"),
    "New five-player Dou Dizhu, three decks": ("新五人斗地主（三副牌）", "新五人鬥地主（三副牌）"),
    "Classic three-player Dou Dizhu": ("经典斗地主", "經典鬥地主"),
    "Fenzhou five-player Dou Dizhu": ("汾州五人斗地主", "汾州五人鬥地主"),
    "name": ("名称", "名稱"),
    "variant": ("玩法", "玩法"),
    "base score": ("底分", "底分"),
    "room coefficient": ("房间系数", "房間係數"),
    "house take": ("系统回收", "系統回收"),
    "Beans taken from every player per hand.": (
        "每局从每位玩家回收的欢乐豆。",
        "每局從每位玩家回收的歡樂豆。",
    ),
    "rake percent": ("抽成百分比", "抽成百分比"),
    "Share of each winner's gross gain kept by the house.": (
        "从每位赢家的毛收益中抽取的比例。",
        "從每位贏家的毛收益中抽取的比例。",
    ),
    "maximum multiplier": ("封顶倍数", "封頂倍數"),
    "Cap where the variant has none of its own; empty for no cap.": (
        "玩法本身不封顶时的倍数上限；留空表示不封顶。",
        "玩法本身不封頂時的倍數上限；留空表示不封頂。",
    ),
    "minimum balance": ("入场门槛", "入場門檻"),
    "Beans needed to sit down; empty to compute it from the stakes.": (
        "入座所需的欢乐豆；留空则按房间设置计算。",
        "入座所需的歡樂豆；留空則按房間設定計算。",
    ),
    "bid seconds": ("叫分时限（秒）", "叫分時限（秒）"),
    "turn seconds": ("出牌时限（秒）", "出牌時限（秒）"),
    "rule options": ("规则选项", "規則選項"),
    "Variant rule options by name; empty for the defaults.": (
        "按名称填写的玩法规则选项；留空使用默认规则。",
        "按名稱填寫的玩法規則選項；留空使用預設規則。",
    ),
    "active": ("开放", "開放"),
    "created": ("创建时间", "建立時間"),
    "room": ("房间", "房間"),
    "rooms": ("房间", "房間"),
    "Rule options must be a JSON object.": (
        "规则选项必须是 JSON 对象。",
        "規則選項必須是 JSON 物件。",
    ),
    "Profile": ("个人资料", "個人資料"),
    "Beans": ("欢乐豆", "歡樂豆"),
    "Claim daily relief": ("领取每日救济", "領取每日救濟"),
    "Daily relief claimed today.": ("今日救济已领取。", "今日救濟已領取。"),
    "Score and title": ("积分与称号", "積分與稱號"),
    "Score": ("积分", "積分"),
    "Title": ("称号", "稱號"),
    "%(missing)s more points to %(title)s": (
        "再得 %(missing)s 积分升为 %(title)s",
        "再得 %(missing)s 積分升為 %(title)s",
    ),
    "The highest title of the club.": ("已是俱乐部最高称号。", "已是俱樂部最高稱號。"),
    "Recent bean movements": ("最近的欢乐豆流水", "最近的歡樂豆流水"),
    "Time": ("时间", "時間"),
    "Change": ("变动", "變動"),
    "Balance": ("余额", "餘額"),
    "No movements yet.": ("暂无流水。", "暫無流水。"),
    "Change password": ("修改密码", "修改密碼"),
    "Players to adjust:": ("要调整的玩家：", "要調整的玩家："),
    "Apply adjustment": ("确认调整", "確認調整"),
    "Entries": ("条目", "條目"),
    "Credits": ("收入", "收入"),
    "Debits": ("支出", "支出"),
    "Net": ("净额", "淨額"),
    "House balance": ("庄家余额", "莊家餘額"),
    "House balance (the club's total intake)": (
        "庄家余额（俱乐部总收入）",
        "莊家餘額（俱樂部總收入）",
    ),
    "Day": ("日期", "日期"),
    "Total": ("合计", "合計"),
    "No intake yet.": ("暂无收入。", "暫無收入。"),
    "Dou Dizhu Club": ("斗地主俱乐部", "鬥地主俱樂部"),
    "ddz club": ("斗地主俱乐部", "鬥地主俱樂部"),
    "Lobby": ("大厅", "大廳"),
    "Admin": ("管理后台", "管理後台"),
    "Log out": ("退出", "登出"),
    "Log in": ("登录", "登入"),
    "Sign up": ("注册", "註冊"),
    "Language": ("语言", "語言"),
    "Switch": ("切换", "切換"),
    "A self-hosted Dou Dizhu club. Beans are play money.": (
        "自建的斗地主俱乐部。欢乐豆仅供娱乐，不可兑换。",
        "自建的鬥地主俱樂部。歡樂豆僅供娛樂，不可兌換。",
    ),
    "Your balance: %(beans)s beans": ("你的余额：%(beans)s 欢乐豆", "你的餘額：%(beans)s 歡樂豆"),
    "Log in or sign up to take a seat.": ("登录或注册后即可入座。", "登入或註冊後即可入座。"),
    "Base score": ("底分", "底分"),
    "Coefficient": ("系数", "係數"),
    "Minimum balance": ("入场门槛", "入場門檻"),
    "No room is open right now.": ("暂时没有开放的房间。", "暫時沒有開放的房間。"),
}

COLUMN = {"zh_Hans": 0, "zh_Hant": 1}
ENTRY = re.compile(r'^msgid "(?P<id>(?:[^"\\]|\\.)*)"\nmsgstr ""$', re.MULTILINE)


def fill(path: Path, locale: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        msgid = match.group("id")
        if not msgid:
            return match.group(0)
        if locale == "en":
            value = msgid
        elif msgid in TABLE:
            value = TABLE[msgid][COLUMN[locale]]
        else:
            missing.append(msgid)
            return match.group(0)
        return f'msgid "{msgid}"\nmsgstr "{value}"'

    text = ENTRY.sub(replace, text)
    text = text.replace("#, fuzzy\n", "", 1)
    path.write_text(text, encoding="utf-8")
    return missing


def main() -> int:
    root = Path(__file__).resolve().parent.parent / "locale"
    missing_any = False
    for locale in ("zh_Hans", "zh_Hant", "en"):
        missing = fill(root / locale / "LC_MESSAGES" / "django.po", locale)
        for msgid in missing:
            missing_any = True
            print(f"{locale}: no translation for {msgid!r}", file=sys.stderr)
    return 1 if missing_any else 0


if __name__ == "__main__":
    sys.exit(main())
