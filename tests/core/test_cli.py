"""The CLI as a user runs it: real subprocesses, real files, exit codes and output."""

import json
import os
import subprocess
import sys
from pathlib import Path

from core.tenants import tenant_key
from tests.conftest import ANSWERING_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]


def run(data: Path, *args: str) -> subprocess.CompletedProcess:
    # the CLI's mechanics need the plain questions below answered; whether the shipped
    # threshold answers them is measured by the eval sets (tests/conftest.py `answering`)
    env = {**os.environ, "GROUNDWORK_DATA": str(data), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_ingest_list_ask_delete(tmp_path, write_file):
    data = tmp_path / "data"
    good = write_file("oil.md", "# Maintenance\n\n7-2 The engine oil capacity is 5 quarts with filter change.\n")
    bad = write_file("broken.pdf", b"%PDF-1.4 not really a pdf \x00\x01")

    created = run(data, "tenants", "create", "Компания Ромашка")
    assert created.returncode == 0 and "t_" in created.stdout
    again = run(data, "tenants", "create", "Компания Ромашка")  # a QA pass: "created" a second time
    assert again.returncode == 0 and again.stdout.startswith("exists already: Компания Ромашка")
    assert "Компания Ромашка" in run(data, "tenants", "list").stdout

    res = run(data, "ingest", "--tenant", "acme", str(good), str(bad))
    assert res.returncode == 1
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("ready") and "oil.md" in lines[0] and "chunks=1" in lines[0]
    assert lines[1].startswith("failed") and "broken.pdf" in lines[1] and lines[1].rstrip().endswith(".")
    assert "Traceback" not in res.stderr

    again = run(data, "ingest", "--tenant", "acme", str(good))
    assert again.returncode == 0 and again.stdout.startswith("unchanged")
    # the ingest prepared the answer vectors (stderr); a second preparation has nothing to do
    assert "prepared" in res.stderr and "new)" in res.stderr
    prepared = run(data, "prepare", "--tenant", "acme")
    assert prepared.returncode == 0 and prepared.stdout.startswith("prepared") and "(0 new)" in prepared.stdout
    assert run(data, "prepare", "--tenant", "nobody").stderr.startswith("error: There is no tenant")

    listed = json.loads(run(data, "docs", "list", "--tenant", "acme", "--json").stdout)
    ready = [d for d in listed if d["status"] == "ready"]
    assert len(ready) == 1 and ready[0]["chunks"] == 1 and ready[0]["file_name"] == "oil.md"
    assert ready[0]["tenant"] == "acme"

    ans = run(data, "ask", "--tenant", "acme", "What is the engine oil capacity?", "--json")
    assert ans.returncode == 0, ans.stderr
    answer = json.loads(ans.stdout)
    assert answer["status"] == "answered" and "5 quarts" in answer["answer"]
    assert set(answer) >= {"question", "tenant", "status", "answer", "citations", "claims", "confidence",
                           "factuality", "refusal_reason", "closest", "provider", "model", "timings_ms",
                           "trace_id"}
    readable = run(data, "ask", "--tenant", "acme", "What is the engine oil capacity?").stdout.splitlines()
    assert readable[0].startswith("[answered] confidence=") and readable[0].endswith("provider=extractive")
    assert "5 quarts" in readable[1] and readable[2].startswith("  [1] oil.md")

    gone = run(data, "docs", "delete", "--tenant", "acme", ready[0]["doc_id"])
    assert gone.returncode == 0
    missing = run(data, "docs", "delete", "--tenant", "acme", ready[0]["doc_id"])
    assert missing.returncode == 2 and missing.stderr.startswith("error: No document")


def test_user_errors_are_one_sentence(tmp_path):
    data = tmp_path / "data"
    res = run(data, "ingest", "--tenant", "acme", str(tmp_path / "nope.pdf"))
    assert res.returncode == 2 and res.stderr.strip().startswith("error: No such file")
    assert "Traceback" not in res.stderr
    res = run(data, "ask", "--tenant", "", "hello")
    assert res.returncode == 2 and "Traceback" not in res.stderr


def test_ingest_over_the_chunk_limit_fails_in_one_line(tmp_path, write_file):
    many = write_file("many.md", "".join(f"# Part {n}\n\nPart {n} covers topic {n}.\n\n" for n in range(1, 6)))
    env = {**os.environ, "GROUNDWORK_DATA": str(tmp_path / "data"), "GROUNDWORK_MAX_CHUNKS_PER_DOC": "2"}
    res = subprocess.run([sys.executable, "-m", "core.cli", "ingest", "--tenant", "acme", str(many)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stdout.startswith("failed     many.md: many.md is too long to index: ")
    assert res.stdout.rstrip().endswith("(GROUNDWORK_MAX_CHUNKS_PER_DOC for every tenant).") and len(res.stdout.splitlines()) == 1


def test_ingest_reports_progress_of_long_files_on_stderr(settings, write_file, monkeypatch, capsys):
    from core import cli

    monkeypatch.setattr(cli, "PROGRESS_AFTER_S", 0.0)  # every file counts as long here
    many = write_file("many.md", "".join(f"# Part {n}\n\nPart {n} covers topic {n}.\n\n" for n in range(1, 6)))
    assert cli.main(["ingest", "--tenant", "acme", str(many)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and out.startswith("ready      many.md")  # stdout: one line a file
    assert "many.md: embedding" in err and "%" in err


def test_batch_ask_and_verify(tmp_path, write_file):
    data = tmp_path / "data"
    run(data, "ingest", "--tenant", "acme",
        str(write_file("oil.md", "# Maintenance\n\nThe engine oil capacity is 5 quarts.\n")))
    questions = write_file("q.jsonl", '{"id": "q1", "question": "What is the engine oil capacity?"}\n'
                                      '{"id": "q2", "question": "Who won the 1998 World Cup?"}\n')
    out = tmp_path / "answers.jsonl"
    assert run(data, "ask", "--tenant", "acme", "--batch", str(questions), "--out", str(out)).returncode == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2"]
    assert rows[0]["status"] == "answered" and rows[1]["status"] == "refused"
    # every stage is reported, also for a refusal that never reached generation
    assert all(set(r["timings_ms"]) >= {"retrieve", "generate", "verify", "total"} for r in rows)
    # a batch is a script's run: listed on Traces, left out of live quality and the review queue (QA pass)
    from core import store
    from core.config import load_settings

    assert run(data, "ask", "--tenant", "acme", "What is the engine oil capacity?").returncode == 0
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    assert {t["origin"] for t in store.list_traces(settings, "acme")} == {"batch", None}
    assert [t["origin"] for t in store.list_traces(settings, "acme", people_only=True)] == [None]

    claims = write_file("c.jsonl", json.dumps({"id": "c1", "premise": "Capacity is 5 quarts.",
                                               "claim": "Capacity is 6 quarts."}) + "\n")
    vout = tmp_path / "verdicts.jsonl"
    assert run(data, "verify", "--batch", str(claims), "--out", str(vout)).returncode == 0
    verdict = json.loads(vout.read_text())
    assert verdict["id"] == "c1" and verdict["verdict"] == "contradicted" and "score" in verdict


def test_ask_after_a_question_reads_a_follow_up_whole(tmp_path, write_file):
    data = tmp_path / "data"
    run(data, "ingest", "--tenant", "acme", str(write_file(
        "oil.md", "# Maintenance\n\nThe engine oil capacity is 5 quarts.\n\nThe gearbox oil capacity is 2 litres.\n")))
    res = run(data, "ask", "--tenant", "acme", "--after", "What is the engine oil capacity?",
              "And the gearbox oil capacity?", "--json")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["question"] == "And the gearbox oil capacity?"
    assert answer["asked_as"] == "What is the gearbox oil capacity?"
    assert "2 litres" in answer["answer"] and "5 quarts" not in answer["answer"]


def test_verify_with_the_model_judge(tmp_path, write_file):
    from scripted_llm import Reply, ScriptedLLM

    data = tmp_path / "data"
    claims = write_file("c.jsonl", "".join(json.dumps(r) + "\n" for r in [
        {"id": "ok", "premise": "Capacity is 5 quarts.", "claim": "Capacity is 5 quarts."},
        {"id": "vetoed", "premise": "Capacity is 5 quarts with filter.", "claim": "Capacity is 5 quarts."},
        {"id": "wrong", "premise": "Capacity is 5 quarts.", "claim": "Capacity is 6 quarts."},
    ]))
    vout = tmp_path / "verdicts.jsonl"
    res = run(data, "verify", "--judge", "llm", "--batch", str(claims), "--out", str(vout))
    assert res.returncode == 2 and "No LLM endpoint is configured" in res.stderr

    def judge(request):
        vetoed = "with filter" in request["messages"][0]["content"]
        return Reply("UNSUPPORTED" if vetoed else "SUPPORTED",
                     first_token={"SUPPORTED": 0.2, "UNSUPPORTED": 0.8} if vetoed else {"SUPPORTED": 0.9})

    with ScriptedLLM(judge) as llm:
        os.environ["GROUNDWORK_LLM_BASE_URL"], os.environ["GROUNDWORK_LLM_MODEL"] = llm.base_url, "m"
        try:
            res = run(data, "verify", "--judge", "llm", "--batch", str(claims), "--out", str(vout))
        finally:
            del os.environ["GROUNDWORK_LLM_BASE_URL"], os.environ["GROUNDWORK_LLM_MODEL"]
    assert res.returncode == 0, res.stderr
    verdicts = {v["id"]: v for v in map(json.loads, vout.read_text().splitlines())}
    assert verdicts["ok"]["verdict"] == "supported" and verdicts["ok"]["score"] == 1.0
    assert verdicts["vetoed"]["verdict"] == "unsupported" and verdicts["vetoed"]["score"] == 0.2
    assert verdicts["wrong"]["verdict"] == "contradicted"
    assert len(llm.requests) == 2  # the contradicted claim never reaches the model


def test_ask_checks_the_tenant_and_every_batch_row_first(tmp_path, write_file):
    data = tmp_path / "data"
    run(data, "ingest", "--tenant", "acme", str(write_file("oil.md", "# Oil\n\nThe oil capacity is 5 quarts.\n")))
    typo = run(data, "ask", "--tenant", "acmee", "What is the oil capacity?")
    assert typo.returncode == 2 and typo.stderr.startswith("error: No tenant named 'acmee'")

    questions = write_file("q.jsonl", '{"id": "q1", "question": "What is the oil capacity?"}\n'
                                      '{"id": "q2", "question": "  "}\n')
    out = tmp_path / "answers.jsonl"
    res = run(data, "ask", "--tenant", "acme", "--batch", str(questions), "--out", str(out))
    assert res.returncode == 2 and "q.jsonl:2 has an empty 'question'" in res.stderr
    assert not out.exists()  # nothing half-written: the rows are checked before the first ask
    # a number where text belongs: said so, not "empty", nor a TypeError in the row (QA pass)
    for line, said in (('{"id": "q3", "question": 42}', "q.jsonl:1 has a 'question' that is not text"),
                       ('{"id": "q4", "question": "And for dogs?", "previous": 5}',
                        "q.jsonl:1 has a 'previous' that is not text")):
        res = run(data, "ask", "--tenant", "acme", "--batch", str(write_file("q.jsonl", line + "\n")),
                  "--out", str(out))
        assert res.returncode == 2 and said in res.stderr, res.stderr
        assert not out.exists()


def test_a_batch_names_every_bad_line_at_once(settings, tmp_path, write_file, capsys):
    """A batch of several bad lines named only the first: one run per mistake (QA pass)."""
    from core.cli import main
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    lines = ['{"id": "q1", "question": "What is the oil capacity?"}', '{"id": "q2", "question": 4}',
             '{"id": "q3"', '[1, 2]', '{"question": "Where?"}'] + [f'{{"id": "e{i}", "question": ""}}' for i in range(4)]
    questions = write_file("q.jsonl", "\n".join(lines) + "\n")
    out = tmp_path / "answers.jsonl"
    assert main(["ask", "--tenant", "acme", "--batch", str(questions), "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"error: {questions} has 8 problems; nothing was run:"
    assert [line.split(" ", 3)[2] for line in err[1:6]] == [f"{questions}:{n}" for n in (2, 3, 4, 5, 6)]
    assert "has a 'question' that is not text" in err[1] and "is not valid JSON" in err[2]
    assert "has no 'id' field" in err[4] and err[6] == "  ... and 3 more."
    assert not out.exists()


def test_a_batch_file_as_notepad_saves_it_is_read_and_its_bad_text_named(settings, tmp_path, write_file, capsys):
    """A reliability pass: a BOM was refused ("Unexpected UTF-8 BOM"), a lone surrogate came
    back as a UnicodeEncodeError, and --out the batch itself overwrote the questions."""
    from core.cli import main
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    bom = write_file("bom.jsonl", "\ufeff" + '{"id": "q1", "question": "What is the oil capacity?"}\n')
    out = tmp_path / "answers.jsonl"
    assert main(["ask", "--tenant", "acme", "--batch", str(bom), "--out", str(out)]) == 0
    assert json.loads(out.read_text().splitlines()[0])["id"] == "q1"
    lone = write_file("lone.jsonl", '{"id": "q1", "question": "What is \\ud800?"}\n')
    assert main(["ask", "--tenant", "acme", "--batch", str(lone), "--out", str(out)]) == 2
    assert "has a 'question' with characters that are not text" in capsys.readouterr().err
    before = bom.read_text(encoding="utf-8")
    assert main(["ask", "--tenant", "acme", "--batch", str(bom), "--out", str(bom)]) == 2
    assert "--out is the batch file itself" in capsys.readouterr().err and bom.read_text(encoding="utf-8") == before


def test_a_batch_with_a_repeated_id_is_refused_before_the_first_ask(settings, tmp_path, write_file, capsys):
    """Two rows of one id gave two output rows no one could tell apart (QA pass)."""
    from core.cli import main
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    questions = write_file("q.jsonl", '{"id": "q1", "question": "What is the oil capacity?"}\n'
                                      '{"id": 7, "question": "What oil?"}\n\n'
                                      '{"id": "q1", "question": "How much oil?"}\n'
                                      '{"id": 7, "question": "Which oil?"}\n'
                                      '{"id": "q1", "question": "Oil?"}\n')
    out = tmp_path / "answers.jsonl"
    assert main(["ask", "--tenant", "acme", "--batch", str(questions), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {questions} has 2 problems; nothing was run:\n"
                   f'  {questions} has the id "q1" on lines 1, 4 and 6; give each row its own id.\n'
                   f"  {questions} has the id 7 on lines 2 and 5; give each row its own id.\n")
    assert not out.exists()  # nothing asked, nothing written
    from core import store

    assert not store.list_traces(settings, "acme")  # no question was asked


def test_the_cli_creates_tenants_by_the_consoles_rules(tmp_path):
    data = tmp_path / "data"
    assert run(data, "tenants", "create", "acme").returncode == 0
    for bad, says in (("../etc", "path separator"), ("<b>x</b>", "markup"), ("ACME", "letter case")):
        res = run(data, "tenants", "create", bad)
        assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr
    assert run(data, "tenants", "list").stdout.split()[0] == "acme"
    assert len(run(data, "tenants", "list").stdout.strip().splitlines()) == 1


def test_a_question_of_markup_only_is_a_clear_error(settings, capsys):
    # "<script>alert(1)</script>" asks nothing; it was answered with a document line that
    # holds the same markup ("See [x](javascript:alert(1)) ...")
    from core.cli import main
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    for question in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)> ?!"):
        assert main(["ask", "--tenant", "acme", question]) == 2
        err = capsys.readouterr().err
        assert err == "error: The question has no words, only markup or punctuation; type it in plain words.\n"


def test_file_names_with_control_characters_print_on_one_escaped_line(settings, tmp_path, capsys):
    # a newline in a file name printed a second, fake result line; ESC reached the terminal
    from core.cli import main

    path = tmp_path / "a\nfailed     b\x1b[31m.txt"
    path.write_text("The gnu lamp lasts 300 hours.\n", encoding="utf-8")
    assert main(["ingest", "--tenant", "acme", str(path)]) == 0
    assert main(["docs", "list", "--tenant", "acme"]) == 0
    assert main(["ask", "--tenant", "acme", "How many hours does the gnu lamp last?"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    ingested, listed = out.splitlines()[:2]
    assert ingested.startswith("ready") and "a\\nfailed     b\\x1b[31m.txt" in ingested
    assert listed.endswith("a\\nfailed     b\\x1b[31m.txt")
    assert "[1] a\\nfailed     b\\x1b[31m.txt" in out


def test_synonyms_are_listed_with_the_words_to_teach_added_and_removed(tmp_path, write_file):
    data = tmp_path / "data"
    run(data, "ingest", "--tenant", "acme", str(write_file("oil.md", "# Engine\n\nThe engine oil capacity is 4.5 litres.\n")))
    question = "What is the lubricant capacity?"
    assert json.loads(run(data, "ask", "--tenant", "acme", question, "--json").stdout)["status"] == "refused"

    listed = run(data, "synonyms", "list", "--tenant", "acme")
    assert listed.returncode == 0
    assert listed.stdout.splitlines()[0] == "no synonyms" and "  lubricant  (1)" in listed.stdout

    added = run(data, "synonyms", "add", "--tenant", "acme", "Lubricant = engine oil", "gizmo = engine")
    assert added.returncode == 0 and added.stdout.strip() == "2 synonyms for acme"
    assert json.loads(run(data, "ask", "--tenant", "acme", question, "--json").stdout)["status"] == "answered"
    state = json.loads(run(data, "synonyms", "list", "--tenant", "acme", "--json").stdout)
    assert state == {"synonyms": {"gizmo": "engine", "lubricant": "engine oil"}, "to_teach": []}

    assert run(data, "synonyms", "remove", "--tenant", "acme", "gizmo").stdout.strip() == "1 synonym for acme"
    unused = run(data, "synonyms", "add", "--tenant", "acme", "dingbat = flux capacitor")
    assert unused.returncode == 0 and unused.stdout.strip() == "2 synonyms for acme"
    assert unused.stderr.strip() == ("warning: the documents never use 'flux capacitor' (for 'dingbat'): the synonym "
                                     "changes nothing until they do")
    assert run(data, "synonyms", "remove", "--tenant", "acme", "dingbat").returncode == 0
    for args, says in [(("remove", "--tenant", "acme", "gizmo"), "error: acme has no synonym 'gizmo'"),
                       (("add", "--tenant", "acme", "no equals sign"), "error: Line 1 is not"),
                       (("add", "--tenant", "acme", "the = x"), "error: Synonym 'the' is only common words"),
                       (("list", "--tenant", "nobody"), "error: No tenant named 'nobody'")]:
        res = run(data, "synonyms", *args)
        assert res.returncode == 2 and res.stderr.startswith(says), res.stderr


def test_russian_ask_through_the_cli_folder_ingest(tmp_path, write_file):
    data = tmp_path / "data"
    folder = write_file("guide/kody.md", "# Коды ошибок\n\n## E20\n\nКод E20 означает проблему слива: засорён сливной фильтр.\n"
                        ).parent
    write_file("guide/notes.txt", "Доставка в Германию занимает 3-5 рабочих дней.\n")
    res = run(data, "ingest", "--tenant", "ромашка", str(folder))  # a folder: one line per file inside
    assert res.returncode == 0 and len(res.stdout.strip().splitlines()) == 2, res.stdout + res.stderr
    answer = json.loads(run(data, "ask", "--tenant", "ромашка", "Что означает код E20?", "--json").stdout)
    assert answer["status"] == "answered" and "слива" in answer["answer"], answer
    assert answer["citations"][0]["source"] == "kody.md"
    refused = json.loads(run(data, "ask", "--tenant", "ромашка", "Что означает код E401?", "--json").stdout)
    assert refused["status"] == "refused" and refused["citations"] == []


def test_a_passage_excluded_from_answers_and_included_again(tmp_path, write_file):
    data = tmp_path / "data"
    doc = write_file("oil.md", "# Maintenance\n\nThe engine oil capacity is 5 quarts with filter change.\n")
    assert run(data, "ingest", "--tenant", "acme", str(doc)).returncode == 0
    from core import store
    from core.config import load_settings

    chunk_id = store.chunk_rows(load_settings({"GROUNDWORK_DATA": str(data)}), "acme")[0]["chunk_id"]
    assert "5 quarts" in json.loads(run(data, "ask", "--tenant", "acme", "--json", "What is the engine oil capacity?").stdout)["answer"]
    out = run(data, "docs", "exclude", "--tenant", "acme", chunk_id)
    assert out.returncode == 0 and out.stdout.strip() == f"excluded {chunk_id}"
    refused = json.loads(run(data, "ask", "--tenant", "acme", "--json", "What is the engine oil capacity?").stdout)
    assert refused["status"] == "refused" and "5 quarts" not in json.dumps(refused["closest"])
    assert run(data, "docs", "include", "--tenant", "acme", chunk_id).returncode == 0
    assert "5 quarts" in json.loads(run(data, "ask", "--tenant", "acme", "--json", "What is the engine oil capacity?").stdout)["answer"]
    unknown = run(data, "docs", "exclude", "--tenant", "acme", "nope:0001")
    assert unknown.returncode != 0 and "No passage nope:0001" in unknown.stderr and "Traceback" not in unknown.stderr


def test_users_add_list_remove_and_keys(tmp_path, write_file):
    data = tmp_path / "data"
    assert run(data, "tenants", "create", "acme").returncode == 0
    env = {**os.environ, "GROUNDWORK_DATA": str(data)}
    added = subprocess.run([sys.executable, "-m", "core.cli", "users", "add", "Ann", "--tenant", "acme", "--role",
                            "admin", "--password-stdin"], cwd=ROOT, env=env, input="correct horse battery\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0 and added.stdout.strip() == "created user ann: admin of acme"
    listed = run(data, "users", "list")
    assert listed.stdout.strip() == "ann\tadmin of acme" and "horse" not in listed.stdout
    # one role a tenant: a new role replaces the old one, and the line says which it replaced
    demoted = run(data, "users", "add", "ann", "--tenant", "acme", "--role", "expert")
    assert demoted.stdout.strip() == "updated user ann: expert of acme (was admin; a user holds one role in a tenant)"
    assert run(data, "users", "list").stdout.strip() == "ann\texpert of acme"
    assert run(data, "users", "add", "ann", "--tenant", "acme", "--role", "expert").stdout.strip() == \
        "updated user ann: expert of acme"
    short = subprocess.run([sys.executable, "-m", "core.cli", "users", "add", "bob", "--tenant", "acme", "--role",
                            "expert", "--password-stdin"], cwd=ROOT, env=env, input="short\n",
                           capture_output=True, text=True, timeout=120)
    assert short.returncode != 0 and "at least 10 characters" in short.stderr and "Traceback" not in short.stderr
    # no terminal and no --password-stdin (a QA pass: a termios traceback): one sentence
    blind = subprocess.run([sys.executable, "-m", "core.cli", "users", "add", "cy", "--tenant", "acme", "--role",
                            "expert"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=120)
    assert blind.returncode == 2 and "Traceback" not in blind.stderr
    assert blind.stderr.strip() == "error: No terminal to ask the password on; pipe it in with --password-stdin."
    assert run(data, "users", "remove", "ann").returncode == 0
    assert "single-user mode" in run(data, "users", "list").stdout
    made = run(data, "keys", "create", "--tenant", "acme", "--label", "ci")
    key = made.stdout.strip().splitlines()[-1]
    assert made.returncode == 0 and key.startswith("gw_")
    key_id = key.split("_")[1]
    assert key_id in run(data, "keys", "list", "--tenant", "acme").stdout
    assert run(data, "keys", "revoke", "--tenant", "acme", key_id).stdout.strip() == f"revoked {key_id}"
    again = run(data, "keys", "revoke", "--tenant", "acme", key_id)
    assert again.returncode != 0 and "No live key" in again.stderr


def test_everyday_mistakes_are_one_sentence_never_a_traceback(settings, write_file, tmp_path, capsys):
    # the QA report's tracebacks: a missing or folder --out, a folder --batch, a row that is
    # no object, a file that is not UTF-8; and a mistyped tenant listed as if empty
    from core import cli

    assert cli.main(["ingest", "--tenant", "acme", str(write_file("oil.md", "# Oil\n\nCapacity is 5 quarts.\n"))]) == 0
    q = write_file("q.jsonl", '{"id": 1, "question": "What is the capacity?"}\n')
    cases = {
        "cannot use": ["ask", "--tenant", "acme", "--batch", str(q), "--out", str(tmp_path / "nodir" / "a.jsonl")],
        "is a folder": ["ask", "--tenant", "acme", "--batch", str(tmp_path), "--out", str(tmp_path / "a.jsonl")],
        "is not a JSON object": ["ask", "--tenant", "acme", "--batch", str(write_file("n.jsonl", "5\n")),
                                 "--out", str(tmp_path / "a.jsonl")],
        "is not UTF-8": ["ask", "--tenant", "acme", "--batch", str(write_file("l.jsonl", b"\xff\xfe{}\n")),
                         "--out", str(tmp_path / "a.jsonl")],
        "No tenant named 'acne'": ["docs", "list", "--tenant", "acne"],
        "reserved for the eval harness": ["tenants", "create", "eval-demo-mine"],
    }
    capsys.readouterr()
    for said, argv in cases.items():
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and len(err.strip().splitlines()) == 1, err
    assert cli.main(["ask", "--tenant", "acme", "--batch", str(q), "--out", str(tmp_path)]) == 2  # --out a folder
    assert "cannot use" in capsys.readouterr().err


def test_output_into_a_closed_pipe_ends_quietly(tmp_path, write_file):
    data = tmp_path / "data"
    run(data, "ingest", "--tenant", "acme", str(write_file("oil.md", "# Oil\n\nCapacity is 5 quarts.\n")))
    env = {**os.environ, "GROUNDWORK_DATA": str(data)}
    proc = subprocess.Popen([sys.executable, "-m", "core.cli", "docs", "list", "--tenant", "acme"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head` does once it has read enough
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_a_folder_ingested_again_updates_a_file_whose_bytes_another_file_holds(settings, tmp_path, capsys):
    from core import store
    from core.cli import main

    folder = tmp_path / "policies"
    folder.mkdir()
    named, copy = folder / "cancellation_policy.md", folder / "cancellation_policy_copy.md"
    fee_25 = "# Cancellation policy\n\nA cancellation costs a fee of 25 EUR.\n"
    named.write_text(fee_25)
    assert main(["ingest", "--tenant", "acme", str(named)]) == 0
    named.write_text(fee_25.replace("25 EUR", "30 EUR"))
    assert main(["ingest", "--tenant", "acme", str(named)]) == 0
    copy.write_text(fee_25)
    assert main(["ingest", "--tenant", "acme", str(copy)]) == 0
    named.write_text(fee_25)
    capsys.readouterr()
    assert main(["ingest", "--tenant", "acme", "--no-prepare", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ready") and "cancellation_policy.md" in lines[0]
    assert "same content as cancellation_policy_copy.md" in lines[0] and "already indexed" not in lines[0]
    assert lines[1].startswith("unchanged") and "cancellation_policy_copy.md" in lines[1]
    doc = next(d for d in store.list_documents(settings, "acme") if d["file_name"] == "cancellation_policy.md")
    assert "25 EUR" in store.chunk_rows(settings, "acme", doc["doc_id"])[0]["text"]


def test_a_folder_ingest_says_a_line_for_every_file_a_direct_ingest_reads(settings, tmp_path, capsys):
    from core.cli import main

    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "rich.doc").write_bytes(b"{\\rtf1\\ansi\\pard Bay 9 opens at 06:00.\\par}")
    (folder / "word97.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 4096)
    (folder / "notes.mdown").write_text("# Notes\n\nThe gate closes at 22:00.\n")
    (folder / "notes2.mkd").write_text("# Keys\n\nKeys are kept at the front desk.\n")
    (folder / "page.xhtml").write_text("<html><body><h1>Parking</h1><p>Parking is free on Sundays.</p></body></html>")
    (folder / "rota.xls").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 4096)
    assert main(["ingest", "--tenant", "acme", "--no-prepare", str(folder)]) == 1
    lines = capsys.readouterr().out.splitlines()
    said = {line.split()[1].rstrip(":"): line.split()[0] for line in lines}
    assert said == {"notes.mdown": "ready", "notes2.mkd": "ready", "page.xhtml": "ready", "rich.doc": "ready",
                    "word97.doc": "failed", "rota.xls": "failed"}
    refusal = next(line for line in lines if "word97.doc" in line)
    assert refusal.endswith("save it as an unprotected DOCX and upload it again.")
    assert next(line for line in lines if "rota.xls" in line).endswith(
        "save it as an unprotected XLSX (or CSV) and upload it again.")


def test_a_folder_ingest_says_which_files_it_skipped(settings, tmp_path, capsys):
    # a QA pass: "program.exe" and ".hidden.md" in a folder were skipped without a word
    from core.cli import main

    folder = tmp_path / "docs"
    (folder / ".drafts").mkdir(parents=True)
    (folder / "leave.md").write_text("# Leave\n\nStaff get 25 days.\n")
    (folder / "program.exe").write_bytes(b"MZ\x90\x00")
    (folder / ".hidden.md").write_text("# Hidden\n\nNot read.\n")
    (folder / ".drafts" / "draft.md").write_text("# Draft\n\nNot read either.\n")
    # a link out of the folder put /etc/passwd into a tenant's answers (reliability pass); a
    # link inside the folder is its content
    (tmp_path / "secret.txt").write_text("The root password is hunter2.\n")
    (folder / "passwd-link.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "sub").mkdir()
    (folder / "sub" / "leave-link.md").symlink_to(folder / "leave.md")
    (folder / "~$intake.docx").write_bytes(b"\x05lock")  # Word's lock file failed the ingest (exit 1)
    assert main(["ingest", "--tenant", "acme", "--no-prepare", str(folder)]) == 0
    printed = capsys.readouterr()
    assert [line.split()[:2] for line in printed.out.splitlines()][0] == ["ready", "leave.md"]
    assert len(printed.out.splitlines()) == 2 and "leave-link.md" in printed.out  # the same content again
    skipped = [line for line in printed.err.splitlines() if line.startswith("skipped")]
    assert len(skipped) == 5, printed.err
    # the tenant did not exist: said, as a typo of another's id would make one (a reliability pass)
    assert printed.err.splitlines()[0] == "created tenant acme (it did not exist; `tenants list` shows the others)"
    assert main(["ingest", "--tenant", "acme", "--no-prepare", str(folder / "leave.md")]) == 0
    assert "created tenant" not in capsys.readouterr().err
    assert any("~$intake.docx: an Office lock file" in line for line in skipped)
    assert any("passwd-link.txt: a link to a file outside the folder" in line for line in skipped)
    assert any("program.exe: not a type read here (.exe)" in line for line in skipped)
    assert any(".hidden.md: a hidden file" in line for line in skipped)
    assert any("draft.md: a hidden file" in line for line in skipped)


def test_ingest_counts_only_the_pages_it_indexed(tmp_path):
    # a scanned page not read (OCR off) is no indexed page: "pages=1/2", the note on stderr
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Receipts must be submitted within 30 days of purchase.", fontsize=12)
    paper = pymupdf.open()
    paper.new_page().insert_text((72, 72), "Refunds are paid within 14 days of the request.", fontsize=14)
    scanned = doc.new_page()
    scanned.insert_image(scanned.rect, pixmap=paper[0].get_pixmap(dpi=150))
    doc.save(tmp_path / "half.pdf")
    env = {**os.environ, "GROUNDWORK_DATA": str(tmp_path / "data"), "GROUNDWORK_OCR": "0"}
    res = subprocess.run([sys.executable, "-m", "core.cli", "ingest", "--tenant", "acme", str(tmp_path / "half.pdf"),
                          "--no-prepare"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("ready      half.pdf  pages=1/2 ")
    assert "half.pdf: Page 2 was scanned and not read" in res.stderr


def test_a_citation_of_a_file_without_sections_prints_no_empty_section(tmp_path, write_file):
    # the QA pass: a CSV row's citation read "[1] parts.csv § : “...”"
    data = tmp_path / "data"
    table = write_file("parts.csv", "Part,Bin,Stock\nBrake pads,A2,14\nChain,B7,30\nSaddle,C1,5\n")
    assert run(data, "ingest", "--tenant", "acme", str(table)).returncode == 0
    out = run(data, "ask", "--tenant", "acme", "In which bin are the brake pads?").stdout
    cited = [line for line in out.splitlines() if line.startswith("  [1] parts.csv")]
    assert cited and "§ :" not in out and cited[0].startswith("  [1] parts.csv: “"), out


def test_docs_list_says_which_document_is_out_of_force(settings, tmp_path, capsys):
    """A QA pass: an old edition kept beside the new one showed nothing in `docs list`."""
    from core.cli import main

    old = tmp_path / "leave_2022.md"
    old.write_text("# Leave Policy\n\nVersion 2022.\n\nStaff get 22 days of leave.\n", encoding="utf-8")
    new = tmp_path / "leave_2025.md"
    new.write_text("# Leave Policy\n\nVersion 2025. Effective 1 January 2025. This policy supersedes the Leave "
                   "Policy of 2022.\n\nStaff get 25 days of leave.\n", encoding="utf-8")
    assert main(["ingest", "--tenant", "acme", str(old), str(new)]) == 0
    capsys.readouterr()
    assert main(["docs", "list", "--tenant", "acme"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if line.endswith("leave_2022.md"))
    assert out[at + 1] == ("    out of force: leave_2025.md replaces it: “This policy supersedes the Leave "
                           "Policy of 2022.”")
    assert not any("out of force" in line for line in out[:at] + out[at + 2:])
    assert main(["docs", "list", "--tenant", "acme", "--json"]) == 0
    listed = {d["file_name"]: d["out_of_force"] for d in json.loads(capsys.readouterr().out)}
    assert listed["leave_2025.md"] is None and listed["leave_2022.md"].startswith("leave_2025.md replaces it")


def test_traces_purge_deletes_old_asks_with_their_ratings_and_decisions(settings, capsys):
    """A scale pass: about 40 KB an ask and no way to let the old ones go."""
    import time as clock

    from core import store
    from core.cli import main

    old = store.save_trace(settings, {"answer": {"tenant": "acme", "question": "Old?", "status": "refused"}})
    new = store.save_trace(settings, {"answer": {"tenant": "acme", "question": "New?", "status": "refused"}})
    other = store.save_trace(settings, {"answer": {"tenant": "globex", "question": "Old?", "status": "refused"}})
    with store.connect(settings) as conn:
        conn.execute("UPDATE traces SET created_at=? WHERE trace_id IN (?, ?)", (clock.time() - 40 * 86400, old, other))
    store.add_feedback(settings, "acme", old, -1, "wrong")
    store.save_review(settings, "acme", old, "dismissed")
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    assert main(["traces", "purge", "--tenant", "acme", "--older-than", "30"]) == 0
    assert capsys.readouterr().out == "purged 1 ask older than 30 days from acme\n"
    assert store.get_trace(settings, "acme", old) is None and store.get_trace(settings, "acme", new) is not None
    assert store.get_trace(settings, "globex", other) is not None  # another tenant's asks stay
    assert not store.list_feedback(settings, "acme")
    with store.connect(settings) as conn:
        assert conn.execute("SELECT count(*) FROM reviews WHERE trace_id=?", (old,)).fetchone()[0] == 0
    assert main(["traces", "purge", "--tenant", "acme", "--older-than", "-1"]) == 2
    assert "--older-than takes a number of days" in capsys.readouterr().err


# a delete killed (SIGKILL: no `finally` runs) after it decided and emptied the registry, before
# the vectors and folders went
_KILLED_DELETE = """
import os, signal, sys
sys.path.insert(0, {root!r})
from core import index, tenant_deletion
from core.config import load_settings
index.drop_collection = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
tenant_deletion.delete_tenant(load_settings(), "acme")
"""


def test_tenants_delete_asks_for_yes_deletes_one_tenant_and_finishes_a_killed_delete(tmp_path, write_file):
    data = tmp_path / "data"
    for tenant, text in (("acme", "The engine oil capacity is 5 quarts.\n"), ("beta", "Tyre pressure is 2.4 bar.\n")):
        assert run(data, "ingest", "--tenant", tenant, str(write_file(f"{tenant}.md", f"# Notes\n\n{text}"))).returncode == 0
    assert run(data, "ask", "--tenant", "acme", "What is the engine oil capacity?").returncode == 0

    refused = run(data, "tenants", "delete", "--tenant", "acme")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == ("error: This would delete tenant acme and everything it holds (1 document, 1 ask, "
                              "0 API keys, 0 user roles and 0 eval runs); add --yes to do it.\n")
    unknown = run(data, "tenants", "delete", "--tenant", "acmee", "--yes")
    assert unknown.returncode == 2 and unknown.stderr == "error: No tenant named 'acmee'; `tenants list` shows them.\n"
    assert run(data, "tenants", "list").stdout.splitlines()[0].startswith("acme\t")

    env = {**os.environ, "GROUNDWORK_DATA": str(data)}
    killed = subprocess.run([sys.executable, "-c", _KILLED_DELETE.format(root=str(ROOT))], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    listed = run(data, "tenants", "list")
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["beta"]
    assert "tenant acme is being deleted" in listed.stderr and "--tenant acme --yes" in listed.stderr
    assert run(data, "ask", "--tenant", "acme", "What is the engine oil capacity?").stderr.startswith(
        "error: No tenant named 'acme'")
    again = run(data, "tenants", "create", "acme")
    assert again.returncode == 2 and "is being deleted" in again.stderr
    assert "would finish deleting tenant acme" in run(data, "tenants", "delete", "--tenant", "acme").stderr

    finished = run(data, "tenants", "delete", "--tenant", "acme", "--yes")
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("finished deleting tenant acme: 0 documents")
    assert not (data / "tenants" / tenant_key("acme")).exists()
    assert run(data, "tenants", "list").stderr == ""
    answer = json.loads(run(data, "ask", "--tenant", "beta", "What is the tyre pressure?", "--json").stdout)
    assert answer["status"] == "answered" and "2.4 bar" in answer["answer"]
    assert run(data, "tenants", "create", "acme").stdout.startswith("created acme")


def test_docs_reindex_reads_the_kept_originals_again(tmp_path, write_file):
    """After an upgrade that reads files better, `docs reindex` reads every kept original
    again in place (a QA pass: a parser fix reached no document already indexed, as the
    same bytes uploaded again are "unchanged")."""
    from core import store
    from core.config import load_settings
    from core.documents import original_path

    data = tmp_path / "data"
    assert run(data, "ingest", "--tenant", "acme", str(write_file("fees.md", "# Fees\n\nThe fee is 40 EUR.\n")),
               "--no-prepare").returncode == 0
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    doc = store.list_documents(settings, "acme")[0]
    # stands for a reader that now reads the same original differently
    original_path(settings, "acme", doc["doc_id"]).write_text("# Fees\n\nThe fee is 45 EUR.\n", encoding="utf-8")

    res = run(data, "docs", "reindex", "--tenant", "acme", "--all", "--no-prepare")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("reindexed  fees.md  pages=- chunks=1 ")
    texts = [r["text"] for r in store.chunk_rows(settings, "acme")]
    assert any("45 EUR" in t for t in texts) and not any("40 EUR" in t for t in texts)
    assert [d["doc_id"] for d in store.list_documents(settings, "acme")] == [doc["doc_id"]]  # in place

    original_path(settings, "acme", doc["doc_id"]).unlink()  # nothing to read again: it stays as it was
    gone = run(data, "docs", "reindex", "--tenant", "acme", doc["doc_id"], "--no-prepare")
    assert gone.returncode == 1 and gone.stdout.startswith("failed     fees.md: The original file is not kept")
    assert any("45 EUR" in r["text"] for r in store.chunk_rows(settings, "acme"))
    for args in ((), ("nope",), ("--all", doc["doc_id"])):
        wrong = run(data, "docs", "reindex", "--tenant", "acme", *args)
        assert wrong.returncode == 2 and wrong.stderr.startswith("error: ") and "Traceback" not in wrong.stderr


def test_ingest_into_a_tenant_being_deleted_says_only_that(tmp_path, write_file):
    # a QA pass: "created tenant epsilon (it did not exist ...)" came first, then the refusal
    import time

    from core import store
    from core.config import load_settings

    data = tmp_path / "data"
    first = write_file("a.md", "# A\n\nLockers are on level 3.\n")
    assert run(data, "ingest", "--tenant", "epsilon", str(first), "--no-prepare").returncode == 0
    with store.connect(load_settings({"GROUNDWORK_DATA": str(data)})) as conn:
        conn.execute("UPDATE tenants SET deleting_at=? WHERE id='epsilon'", (time.time(),))
    res = run(data, "ingest", "--tenant", "epsilon", str(write_file("b.md", "# B\n\nBikes go in the yard.\n")))
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("error: Tenant 'epsilon' is being deleted") and "created tenant" not in res.stderr
    # the doctor names what finishes it, not "There is no tenant"
    doctor = run(data, "doctor", "--tenant", "epsilon")
    assert doctor.returncode == 2 and "is being deleted; finish it with" in doctor.stderr
    # and what is left of it (no process recorded as deleting it: an abandoned deletion)
    assert doctor.stdout.startswith("left: tenant 'epsilon' was left half-deleted by a process that stopped: ")
    assert "row(s)" in doctor.stdout and "folder(s)" in doctor.stdout
    # the doctor of another tenant names it too: no listing shows it
    assert run(data, "ingest", "--tenant", "zeta", str(first), "--no-prepare").returncode == 0
    other = run(data, "doctor", "--tenant", "zeta")
    assert other.returncode == 0 and "note: tenant 'epsilon' was left half-deleted" in other.stdout


def test_a_key_label_keeps_no_control_character(tmp_path, write_file):
    # a QA pass: an escape sequence in a label coloured the terminal of whoever listed the keys
    data = tmp_path / "data"
    assert run(data, "ingest", "--tenant", "acme", str(write_file("a.md", "# A\n\nText.\n")), "--no-prepare").returncode == 0
    assert run(data, "keys", "create", "--tenant", "acme", "--label", "evil\nlabel \x1b[31mRED").returncode == 0
    listed = run(data, "keys", "list", "--tenant", "acme").stdout
    assert "\x1b" not in listed and "evil label [31mRED" in listed
