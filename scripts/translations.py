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
    "shortest simultaneous step": ("同时决定步骤最短时长（秒）", "同時決定步驟最短時長（秒）"),
    "Seconds a simultaneous step (qq5 reveal and double, new5 grab) stays open at least, "
    "so that its length does not tell how many seats it asked.": (
        "同时决定的步骤（五人亮身份与加倍、新五人抢地主）至少持续的秒数，使其时长不透露询问了几位玩家。",
        "同時決定的步驟（五人亮身份與加倍、新五人搶地主）至少持續的秒數，使其時長不透露詢問了幾位玩家。",
    ),
    "Server": ("服务器", "伺服器"),
    "Everyone's choices are shown": ("公布所有人的选择", "公佈所有人的選擇"),
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
    # issue #8: private tables, seats, sessions, notices (and the screens they share)
    "seat": ("座位", "座位"),
    "side": ("阵营", "陣營"),
    "finished": ("已结束", "已結束"),
    "Small": ("小", "小"),
    "table": ("牌桌", "牌桌"),
    "text": ("文字", "文字"),
    "Your account is suspended: you cannot sit down. Please contact the club's operators.": (
        "你的账号已被停用，无法入座。请联系俱乐部管理员。",
        "你的帳號已被停用，無法入座。請聯繫俱樂部管理員。",
    ),
    "This is a private table: you need its invite link to sit.": (
        "这是私人牌桌：需要邀请链接才能入座。",
        "這是私人牌桌：需要邀請連結才能入座。",
    ),
    "The host has locked this table.": ("桌主已锁定此牌桌。", "桌主已鎖定此牌桌。"),
    "Only the table's host may do that.": ("只有桌主可以这样做。", "只有桌主可以這樣做。"),
    "The host does not allow bots at this table.": (
        "桌主不允许机器人在此牌桌入座。",
        "桌主不允許機器人在此牌桌入座。",
    ),
    "That setting is not allowed in this room.": ("此房间不允许该设置。", "此房間不允許該設定。"),
    "That player has not asked to swap seats with you.": (
        "该玩家没有请求与你换座。",
        "該玩家沒有請求與你換座。",
    ),
    "Only an idle seat can be removed.": ("只能移除闲置的座位。", "只能移除閒置的座位。"),
    "Stood up before the deal, below the minimum of %(minimum)s beans: %(names)s.": (
        "发牌前欢乐豆不足 %(minimum)s，已离座：%(names)s。",
        "發牌前歡樂豆不足 %(minimum)s，已離座：%(names)s。",
    ),
    "This room does not allow private tables.": (
        "此房间不允许开私人牌桌。",
        "此房間不允許開私人牌桌。",
    ),
    "private tables allowed": ("允许私人牌桌", "允許私人牌桌"),
    "Members may open private tables in this room.": (
        "会员可在此房间开私人牌桌。",
        "會員可在此房間開私人牌桌。",
    ),
    "host-settable options": ("桌主可设的规则选项", "桌主可設的規則選項"),
    "Names of the rule options the host of a private table may change.": (
        "私人牌桌桌主可以修改的规则选项名称。",
        "私人牌桌桌主可以修改的規則選項名稱。",
    ),
    "largest private coefficient": ("私人牌桌最大系数", "私人牌桌最大係數"),
    "Operators may host private tables up to this coefficient; empty for none.": (
        "管理员开私人牌桌时系数最高可到此值；留空表示不可调整。",
        "管理員開私人牌桌時係數最高可到此值；留空表示不可調整。",
    ),
    "List option names of this room's variant only.": (
        "只能列出本房间玩法的选项名称。",
        "只能列出本房間玩法的選項名稱。",
    ),
    "status": ("状态", "狀態"),
    "version": ("版本", "版本"),
    "private": ("私人", "私人"),
    "invite code": ("邀请码", "邀請碼"),
    "host": ("桌主", "桌主"),
    "locked": ("已锁定", "已鎖定"),
    "bots may fill seats": ("允许机器人补位", "允許機器人補位"),
    "spectators may watch": ("允许旁观", "允許旁觀"),
    "table settings": ("牌桌设置", "牌桌設定"),
    "tables": ("牌桌", "牌桌"),
    "asks to swap with seat": ("请求换座的座位", "請求換座的座位"),
    "connected": ("已连接", "已連線"),
    "disconnected": ("已断开", "已斷線"),
    "socket lease": ("连接租约", "連線租約"),
    "socket leases": ("连接租约", "連線租約"),
    "user": ("用户", "用戶"),
    "process": ("进程", "行程"),
    "channel": ("通道", "通道"),
    "renewed": ("续期时间", "續期時間"),
    "seats": ("座位", "座位"),
    "number": ("编号", "編號"),
    "started": ("开始时间", "開始時間"),
    "last hand": ("最后一局", "最後一局"),
    "table session": ("牌局场次", "牌局場次"),
    "table sessions": ("牌局场次", "牌局場次"),
    "result": ("结果", "結果"),
    "settled": ("已结算", "已結算"),
    "session": ("场次", "場次"),
    "%(name)s sat down.": ("%(name)s 入座了。", "%(name)s 入座了。"),
    "%(name)s left the table.": ("%(name)s 离开了牌桌。", "%(name)s 離開了牌桌。"),
    "%(name)s changed the table settings: %(what)s.": (
        "%(name)s 修改了牌桌设置：%(what)s。",
        "%(name)s 修改了牌桌設定：%(what)s。",
    ),
    "%(name)s changed the table settings: %(what)s. They apply from the next hand.": (
        "%(name)s 修改了牌桌设置：%(what)s。下一局起生效。",
        "%(name)s 修改了牌桌設定：%(what)s。下一局起生效。",
    ),
    "%(name)s locked the table.": ("%(name)s 锁定了牌桌。", "%(name)s 鎖定了牌桌。"),
    "%(name)s unlocked the table.": ("%(name)s 解锁了牌桌。", "%(name)s 解鎖了牌桌。"),
    "%(name)s removed %(other)s from an idle seat.": (
        "%(name)s 将闲置座位上的 %(other)s 移出。",
        "%(name)s 將閒置座位上的 %(other)s 移出。",
    ),
    "%(name)s asks %(other)s to swap seats.": (
        "%(name)s 请求与 %(other)s 换座。",
        "%(name)s 請求與 %(other)s 換座。",
    ),
    "%(name)s and %(other)s swapped seats.": (
        "%(name)s 与 %(other)s 交换了座位。",
        "%(name)s 與 %(other)s 交換了座位。",
    ),
    "%(name)s will stand up after this hand.": (
        "%(name)s 将在本局结束后离座。",
        "%(name)s 將在本局結束後離座。",
    ),
    "%(name)s was stood up: fewer beans than the table's minimum of %(minimum)s.": (
        "%(name)s 已离座：欢乐豆少于本桌门槛 %(minimum)s。",
        "%(name)s 已離座：歡樂豆少於本桌門檻 %(minimum)s。",
    ),
    "coefficient": ("系数", "係數"),
    "bots": ("机器人", "機器人"),
    "spectators": ("旁观", "旁觀"),
    "a bot": ("一个机器人", "一個機器人"),
    "Bot %(n)s": ("机器人 %(n)s", "機器人 %(n)s"),
    "Hand": ("局", "局"),
    "units": ("分", "分"),
    "Landlord": ("地主", "地主"),
    "Doubling": ("加倍", "加倍"),
    "Play": ("出牌", "出牌"),
    "Nuke": ("核弹", "核彈"),
    "Seat %(n)s": ("%(n)s 号座", "%(n)s 號座"),
    "No such table.": ("没有这张牌桌。", "沒有這張牌桌。"),
    "This invite link is not valid.": ("此邀请链接无效。", "此邀請連結無效。"),
    "Saved: the new settings apply from the next hand.": (
        "已保存：新设置从下一局起生效。",
        "已儲存：新設定從下一局起生效。",
    ),
    "Saved.": ("已保存。", "已儲存。"),
    "Doubling applies to": ("加倍范围", "加倍範圍"),
    "Scoring scheme": ("计分方式", "計分方式"),
    "Kickers": ("带牌规则", "帶牌規則"),
    "Landlord may call a card he holds": ("地主可叫自己持有的牌", "地主可叫自己持有的牌"),
    "Bare plane as the last play": ("最后一手可出不带牌的飞机", "最後一手可出不帶牌的飛機"),
    "Jokers as kickers": ("王可作带牌", "王可作帶牌"),
    "Bonus counts every bomb": ("奖励计入所有炸弹", "獎勵計入所有炸彈"),
    "the whole table": ("全桌", "全桌"),
    "each player": ("每位玩家", "每位玩家"),
    "level": ("升级", "升級"),
    "city": ("城市", "城市"),
    "permissive": ("宽松", "寬鬆"),
    "strict": ("严格", "嚴格"),
    "four jokers": ("四张王", "四張王"),
    "big and small jokers": ("大小王", "大小王"),
    "yes": ("是", "是"),
    "no": ("否", "否"),
    "No such session.": ("没有这个场次。", "沒有這個場次。"),
    "No such hand.": ("没有这局牌。", "沒有這局牌。"),
    "Hands": ("局数", "局數"),
    "suspended": ("已停用", "已停用"),
    "Room": ("房间", "房間"),
    "Save": ("保存", "儲存"),
    "Send": ("发送", "發送"),
    "Table %(n)s": ("%(n)s 号桌", "%(n)s 號桌"),
    "Watch": ("旁观", "旁觀"),
    "When": ("时间", "時間"),
    "Units": ("分数", "分數"),
    "Newer": ("较新", "較新"),
    "Page %(n)s of %(total)s": ("第 %(n)s 页，共 %(total)s 页", "第 %(n)s 頁，共 %(total)s 頁"),
    "Older": ("较早", "較早"),
    "Find a table": ("找牌桌", "找牌桌"),
    "Back": ("后退", "後退"),
    "Invitation": ("邀请", "邀請"),
    "Invitation to a private table": ("私人牌桌邀请", "私人牌桌邀請"),
    "%(host)s invites you to a private table in %(room)s.": (
        "%(host)s 邀请你到 %(room)s 的私人牌桌。",
        "%(host)s 邀請你到 %(room)s 的私人牌桌。",
    ),
    "Log in to take a seat": ("登录后入座", "登入後入座"),
    "free": ("空位", "空位"),
    "Bot": ("机器人", "機器人"),
    "Take a seat": ("入座", "入座"),
    "Watch the table": ("旁观此桌", "旁觀此桌"),
    "Open a private table": ("开私人牌桌", "開私人牌桌"),
    "Table %(t)s": ("%(t)s 号桌", "%(t)s 號桌"),
    "My sessions": ("我的场次", "我的場次"),
    "Score sheet": ("记分表", "記分表"),
    "Download the score sheet (CSV)": ("下载记分表（CSV）", "下載記分表（CSV）"),
    "No hand of this session is over yet.": (
        "本场次还没有结束的牌局。",
        "本場次還沒有結束的牌局。",
    ),
    "A session is a run of hands at one table with the same people.": (
        "场次是同一批人在同一张牌桌连续打的若干局。",
        "場次是同一批人在同一張牌桌連續打的若干局。",
    ),
    "Table": ("牌桌", "牌桌"),
    "Private table": ("私人牌桌", "私人牌桌"),
    "You have not played a session yet.": ("你还没有打过场次。", "你還沒有打過場次。"),
    "Each cell: units · beans (beans from the ledger, house take and rake included).": (
        "每格：分数 · 欢乐豆（欢乐豆取自账本，含台费与抽成）。",
        "每格：分數 · 歡樂豆（歡樂豆取自帳本，含台費與抽成）。",
    ),
    "Table settings": ("牌桌设置", "牌桌設定"),
    "Back to the table": ("返回牌桌", "返回牌桌"),
    "Rule options, seconds and stakes apply from the next hand; a hand in play keeps its own.": (
        "规则选项、秒数和底注从下一局起生效；进行中的牌局保持原设置。",
        "規則選項、秒數和底注從下一局起生效；進行中的牌局保持原設定。",
    ),
    "This room lets hosts change no rule option.": (
        "此房间不允许桌主修改规则选项。",
        "此房間不允許桌主修改規則選項。",
    ),
    "Seconds to play": ("出牌秒数", "出牌秒數"),
    "Seconds to bid": ("叫分秒数", "叫分秒數"),
    "Bots may fill seats": ("允许机器人补位", "允許機器人補位"),
    "Spectators with the invite link may watch": (
        "持邀请链接者可旁观",
        "持邀請連結者可旁觀",
    ),
    "Lock the table (nobody new may sit)": (
        "锁定牌桌（新玩家不能入座）",
        "鎖定牌桌（新玩家不能入座）",
    ),
    "Your turn": ("轮到你了", "輪到你了"),
    "Locked": ("已锁定", "已鎖定"),
    "No bots": ("不用机器人", "不用機器人"),
    "No spectators": ("不许旁观", "不許旁觀"),
    "Next hand: stake %(s)s, %(t)s s to play, %(b)s s to bid": (
        "下一局：底注 %(s)s，出牌 %(t)s 秒，叫分 %(b)s 秒",
        "下一局：底注 %(s)s，出牌 %(t)s 秒，叫分 %(b)s 秒",
    ),
    "Invite link": ("邀请链接", "邀請連結"),
    "Swap seats with %(name)s": ("与 %(name)s 换座", "與 %(name)s 換座"),
    "Withdraw swap request to %(name)s": (
        "撤回对 %(name)s 的换座请求",
        "撤回對 %(name)s 的換座請求",
    ),
    "Ask %(name)s to swap seats": ("请求与 %(name)s 换座", "請求與 %(name)s 換座"),
    "Move to seat %(n)s": ("换到 %(n)s 号座", "換到 %(n)s 號座"),
    "Free seat %(n)s": ("清空 %(n)s 号座", "清空 %(n)s 號座"),
    "Stay seated after this hand": ("本局后继续留座", "本局後繼續留座"),
    "Stand up after this hand": ("本局结束后离座", "本局結束後離座"),
    "you": ("你", "你"),
    "leaving": ("将离座", "將離座"),
    "s": ("秒", "秒"),
}

COLUMN = {"zh_Hans": 0, "zh_Hant": 1}
ENTRY = re.compile(r'^msgid "(?P<id>(?:[^"\\]|\\.)*)"\nmsgstr ""$', re.MULTILINE)
# msgmerge guesses a new msgid's translation from a similar old one ("Pair of small jokers"
# got "big and small jokers"'s): such a guess is emptied, so that the table fills it
FUZZY = re.compile(
    r'^#, fuzzy(?P<flags>(?:, [\w-]+)*)\n(?:#\|.*\n)*msgid "(?P<id>(?:[^"\\]|\\.)+)"\n'
    r'msgstr ".*"$',
    re.MULTILINE,
)


def _unguessed(match: re.Match[str]) -> str:
    flags = match.group("flags")  # ", python-format" stays
    head = f"#{flags}\n" if flags else ""
    return f'{head}msgid "{match.group("id")}"\nmsgstr ""'


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

    text = FUZZY.sub(_unguessed, text)
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
