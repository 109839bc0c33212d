"""English."""

from core.lang.base import Language

MONTH_NUMBERS = {name: n for n, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
    "august aug", "september sep sept", "october oct", "november nov", "december dec"), start=1)
    for name in names.split()}

LANGUAGE = Language(
    code="en",
    name="English",
    letters=frozenset("abcdefghijklmnopqrstuvwxyz"),
    stemmer="english",
    ocr_code="eng",
    withdrawn=("superseded", "obsolete", "no longer in force", "no longer valid", "no longer current",
               "not in force", "no longer applies", "no longer apply", "withdrawn", "archived"),
    status_labels=frozenset("status state".split()),
    span_words=frozenset("to through".split()),
    superseding=("supersedes", "replaces", "in place of"),
    amending=frozenset("deleted replaced amended substituted revoked superseded".split()),
    demonstratives=frozenset("this the".split()),
    status_links=frozenset("by since as from on".split()),
    document_words=frozenset("document policy policies version edition guide guideline guidelines manual handbook "
                             "procedure regulation regulations rules terms agreement contract form standard "
                             "instruction instructions price list schedule".split()),
    stopwords=frozenset(
        """a an the of to in on at for by with from and or but is are was were be been being it
        its this that these those what which who whom whose when where why how do does did can
        could should would will shall may might must i you he she we they me my your our their
        as if than then there here about into over under not no any some all each per vs have
        has had am them him her us mine ours yours theirs myself yourself itself get got so just
        also very much many please tell know want need like""".split()),
    question_words={
        "how many": "number", "how much": "amount", "how much does it cost": "money",
        "how much do": "amount", "how much is": "amount", "maximum": "number", "minimum": "number",
        "the most": "number", "the least": "number", "the longest": "duration", "how many times": "frequency",
        "what percentage": "number", "what percent": "number", "how large": "number",
        "how big": "number", "how long": "duration", "how many days": "duration",
        "how many hours": "duration", "how many weeks": "duration", "how many months": "duration",
        "how many years": "duration", "how many minutes": "duration", "how soon": "duration",
        "how far in advance": "duration", "how far back": "duration", "how often": "frequency", "how frequently": "frequency",
        "how fast": "number", "how quickly": "number",  # a speed or a time: a number either way
        "when": "date", "what date": "date", "what day": "date", "by when": "date",
        "until when": "date", "what year": "date", "what time": "time", "at what time": "time",
        "who": "person", "whom": "person", "whose": "person", "which person": "person",
        "where": "place", "which country": "place", "which city": "place", "why": "reason",
        "what for": "reason", "how do": "how", "how can": "how", "how should": "how",
        "how to": "how", "what cost": "money", "what price": "money", "what fee": "money",
        "what is the cost": "money", "what is the price": "money", "what is the fee": "money",
        "cost": "money", "price": "money",
    },
    negations=frozenset("not no never none nor cannot can't won't don't doesn't isn't aren't "
                        "mustn't shouldn't without neither".split()),
    conditionals=frozenset("if unless whether when whenever".split()),
    pronouns=frozenset({"it", "them"}),  # "their", "they" mostly point within the question
    anticipating=frozenset({"to"}),
    possessives=frozenset("my our your".split()),  # the asker's own: "his", "its" point inside the question
    bounds=frozenset(f"{no} {word} than" for no in ("no", "not")
                     for word in ("more", "less", "fewer", "later", "earlier", "longer", "greater")) | {"not exceeding"},
    months=frozenset(MONTH_NUMBERS) - {"may"},  # "You may return it" names no month
    month_numbers=MONTH_NUMBERS,
    valid_until=("valid until", "valid till", "valid through", "valid to", "effective until",
                 "expires on", "expires", "expiry date", "expiry", "expiration date", "applies until"),
    valid_from=("effective from", "effective as of", "effective", "valid from", "applies from",
                "in force from", "starting from"),
    range_words=frozenset("under over above below up from to upto less more fewer least most".split()),
    premise_openers=("since", "given that", "now that", "seeing that", "considering that", "because"),
    excluding=frozenset(["instead of", "rather than", "except", "except for", "excluding", "other than"]),
    lower_bounds=frozenset(["from", "over", "above", "at least", "minimum", "more", "older", "exceeding", "beyond"]),
    upper_bounds=frozenset(["under", "below", "less", "fewer", "at most", "maximum", "younger", "until", "till",
                            "up to"]),
    lower_after=frozenset(["and over", "or over", "and above", "or above", "or more", "and more", "and older",
                           "or older", "plus"]),
    upper_after=frozenset(["and under", "or under", "and below", "or below", "or less", "or fewer", "and younger",
                           "or younger"]),
    strict_bounds=frozenset(["under", "below", "less", "fewer", "over", "above", "more", "older", "younger",
                             "exceeding", "beyond"]),
    weekdays=frozenset("monday tuesday wednesday thursday friday saturday sunday".split()),
    day_kinds=frozenset("weekday weekdays weekend weekends holiday holidays".split()),
    time_units=frozenset("second seconds minute minutes min mins hour hours hr hrs day days week "
                         "weeks month months year years business-day business-days weekday "
                         "weekdays fortnight".split()),
    money_words=frozenset("dollar dollars usd eur euro euros gbp pound pounds cent cents".split()),
    number_words={"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                  "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
                  "twenty": 20, "thirty": 30, "hundred": 100},
    everyday={
        "pay back": "reimburse", "send back": "return", "give back": "return", "pass on": "transfer", "hand over": "transfer", "fix": "repair",
        "mend": "repair", "boss": "manager", "sick": "illness", "kids": "children", "present": "gift",
        "presents": "gifts", "in a row": "consecutive", "how deep": "depth", "how wide": "width",
        "how tall": "height", "how high": "height", "the most": "maximum",
        "how long do you keep": "retention", "hang on to": "keep retain retention",
        "doctor note": "medical certificate", "sick note": "medical certificate", "expiry": "valid",
        "expiry date": "valid", "admin": "administration", "info": "information",
        "approx": "approximately", "dept": "department", "qty": "quantity",
    },
    acronyms={
        "ceo": "chief executive officer", "cfo": "chief financial officer",
        "cto": "chief technology officer", "coo": "chief operating officer",
        "dpo": "data protection officer", "hr": "human resources", "faq": "frequently asked questions",
        "vat": "value added tax", "sla": "service level agreement",
    },
    filler=frozenset(
        """tell say says said explain describe mean means meaning give list according document
        documents kb knowledge base there any get gets take takes need want make happen happens
        exact exactly precise precisely specified few several whole roughly approximately around
        just really actually still already anyway ever also even quite rather basically usually
        normally typically currently let know knows now today tonight yesterday tomorrow wonder
        wondering think seems seem wants wanted wish would like guys mine went ran bought got
        sometimes mind ago since ask asks asking asked kind kinds sort sorts before up through
        once while both only go goes going onto into something anything everything someone anyone
        somebody anybody straight directly""".split()),
    tag_questions=frozenset(["correct", "right", "true", "is that right", "is that correct", "is that true",
                             "isn't it", "is it not", "am i right", "yes", "no", "right or wrong", "is it"]),
    negating_prefixes=("un", "non-", "non"),
    opposites=(("front", "rear"), ("left", "right"), ("upper", "lower"), ("top", "bottom"), ("inner", "outer"),
               ("domestic", "international"), ("domestic", "foreign"), ("monthly", "annual"),
               ("monthly", "yearly"), ("standard", "express"), ("standard", "premium"), ("hot", "cold"),
               ("summer", "winter"), ("weekday", "weekend"), ("day", "night"), ("minimum", "maximum"),
               ("private", "business"), ("full-time", "part-time"), ("new", "used")),
    contraries=(("open", "closed"), ("open", "shut"), ("included", "excluded"), ("allowed", "prohibited"),
                ("allowed", "forbidden"), ("permitted", "prohibited"), ("permitted", "forbidden"),
                ("mandatory", "optional"), ("required", "optional"), ("compulsory", "optional"),
                ("enabled", "disabled")),
    free_words=frozenset({"free", "free-of-charge", "complimentary"}),
    yes_no_starts=frozenset("do does did can could will would should is are was were may must "
                            "have has am shall".split()),
)
