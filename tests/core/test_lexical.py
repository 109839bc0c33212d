from core.lexical import LexicalIndex, expand_contractions, tokenize


def test_tokenize_stems_by_script_and_keeps_identifiers():
    toks = tokenize("Oil capacities in Para 7-2: 4,7 litres; ошибки сливного фильтра E20")
    assert "7-2" in toks and "4.7" in toks and "e20" in toks
    assert "capac" in toks and "ошибк" in toks and "фильтр" in toks
    assert "in" not in toks


def test_bm25_finds_russian_inflections_and_codes(tmp_path):
    idx = LexicalIndex.build([
        ("c1", "Ошибка E20: засорён сливной фильтр."),
        ("c2", "The engine oil capacity is 5 quarts."),
        ("c3", "Ошибка E10: нет подачи воды."),
    ])
    assert idx.search("ошибку E20 как исправить", 3)[0][0] == "c1"
    assert idx.search("oil capacity", 3)[0][0] == "c2"
    idx.save(tmp_path / "bm25")
    loaded = LexicalIndex.load(tmp_path / "bm25")
    assert loaded.search("сливного фильтра", 3)[0][0] == "c1"
    assert loaded.df == idx.df
    assert loaded.idf("e20") > loaded.idf("ошибк")


def test_empty_index_returns_nothing(tmp_path):
    idx = LexicalIndex.build([])
    assert idx.search("anything", 5) == []
    idx.save(tmp_path / "x")
    assert LexicalIndex.load(tmp_path / "x").search("anything", 5) == []


def test_document_share_counts_documents_not_chunks(tmp_path):
    idx = LexicalIndex.build([
        ("d1:0000", "Northwind delivers washing machines."),
        ("d1:0001", "Northwind collects old appliances."),
        ("d2:0000", "Northwind HomeHub terms."),
        ("d3:0000", "Kestrel van manual."),
    ])
    northwind, homehub = tokenize("Northwind HomeHub")
    assert idx.documents == 3
    assert idx.document_share(northwind) == 2 / 3  # three chunks, two documents
    assert idx.document_share(homehub) == 1 / 3
    assert idx.document_share("unknown") == 0.0
    idx.save(tmp_path / "bm25")
    assert LexicalIndex.load(tmp_path / "bm25").document_share(northwind) == 2 / 3


def test_a_long_english_stem_is_known_through_the_words_it_begins():
    idx = LexicalIndex.build([("d1:0000", "You may lodge a complaint with the authority.")])
    complain, = tokenize("complain")
    assert idx.df.get(complain, 0) == 0 and idx.knows_family(complain)
    assert not idx.knows_family(tokenize("comply")[0])  # too short a stem to guess its family
    assert not idx.knows_family(tokenize("жалоба")[0])  # Latin letters only


def test_russian_imperatives_read_as_their_infinitive():
    # instructions say "подготовьте", questions "что подготовить"
    assert tokenize("Подготовьте") == tokenize("подготовить")
    assert tokenize("оставьте") == tokenize("оставить")
    assert tokenize("используйте") == tokenize("использовать")
    assert tokenize("открывайте") == tokenize("открывать")
    assert tokenize("дверь модель") == ["двер", "модел"]  # nouns in -ь are left alone


def test_english_contractions_are_written_out_not_read_as_words():
    assert expand_contractions("My app wouldn't load - I've got 500 washes") == "My app would not load - I have got 500 washes"
    assert expand_contractions("What's the price? Northwind's policy, can't") == "What is the price? Northwind policy, can not"
    assert "wouldn" not in tokenize("It wouldn’t start") and "ve" not in tokenize("I've")


def test_number_words_read_as_their_digits():
    assert tokenize("a three-year plan") == tokenize("a 3-year plan") == ["3", "year", "plan"]
    assert tokenize("через две недели, три года") == ["2", "недел", "3", "год"]
    assert tokenize("which one is it") == ["one"]  # "one" stays a word: a pronoun as often as a number


def test_a_prefix_is_known_when_a_token_begins_with_it():
    idx = LexicalIndex.build([("d1:0", "Подключайте машину только к холодной воде.")])
    assert idx.knows_prefix("подклю") and not idx.knows_prefix("отключ")


def test_units_spelled_out_read_as_their_symbol():
    assert tokenize("€0.30 per kilometre driven") == tokenize("€0.30 per km driven")
    assert tokenize("70 kilograms") == tokenize("70 kg")
    assert tokenize("не менее 85 сантиметров") == tokenize("не менее 85 см")
    assert tokenize("5 километров") == tokenize("5 км")
    assert tokenize("kilo") == ["kilo"]  # a word that merely begins like a unit stays itself


def test_an_e_mail_is_one_word_however_it_is_written():
    assert tokenize("e-mails") == tokenize("emails") == tokenize("E-Mail")
    assert tokenize("the-mail") == ["mail"]  # only a lone "e-" joins its "mail"


def test_an_update_tokenizes_only_the_added_document_and_equals_a_fresh_build(tmp_path, monkeypatch) -> None:
    from core import lexical

    first = [("d1:0000", "Staff earn 25 days of annual leave."), ("d1:0001", "Parental leave lasts 16 weeks."),
             ("d3:0000", "Annual leave requests go to the team lead.")]
    folder = tmp_path / "bm25"
    LexicalIndex.build(first).save(folder)
    seen: list[str] = []
    real = lexical.tokenize

    def counting(text: str, keep_stopwords: bool = False) -> list[str]:
        seen.append(text)
        return real(text, keep_stopwords)

    monkeypatch.setattr(lexical, "tokenize", counting)
    added = [("d2:0000", "Expense reports are due within 30 days.")]
    updated = LexicalIndex.load(folder).updated({"d3"}, added)
    assert seen == ["Expense reports are due within 30 days."]
    updated.save(folder)
    fresh = LexicalIndex.build([*first[:2], *added])  # the same documents tokenized from scratch
    again = LexicalIndex.load(folder)
    for got in (updated, again):
        assert got.df == fresh.df and got.doc_df == fresh.doc_df and got.documents == 2
        assert sorted(got.chunk_ids) == sorted(fresh.chunk_ids)
        assert got.search("annual leave days", 3) == fresh.search("annual leave days", 3)
    assert "d3:0000" not in again.chunk_ids


def test_a_new_version_hard_links_the_segments_it_keeps(tmp_path) -> None:
    folder = tmp_path / "bm25"
    LexicalIndex.build([("d1:0000", "Staff earn 25 days of annual leave.")]).save(folder)
    first = next(folder.resolve().glob("seg-*.npz"))
    LexicalIndex.load(folder).updated(set(), [("d2:0000", "Expense reports are due within 30 days.")]).save(folder)
    kept = folder.resolve() / first.name
    assert kept.exists() and kept.stat().st_nlink == 1  # the old version is gone; its segment lives on
    assert len(list(folder.resolve().glob("seg-*.npz"))) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["bm25", folder.resolve().name])
