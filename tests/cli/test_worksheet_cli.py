"""``python main.py worksheet``: the JSON of questions and answers, and the PDF (questions
first, the answer key from a new page)."""

import json
import shutil
import subprocess

import pytest

from cli.main import main


def test_worksheet_json_has_the_table_questions_and_answers(capsys):
    assert main(["worksheet", "--seed", "3", "--rows", "9", "--algorithm", "cart", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["seed"], out["algorithm"], out["rows"], len(out["table"])) == (3, "cart", 9, 9)
    assert out["questions"][0]["text"].startswith("What is the entropy of the whole table")
    assert all(q["answer"] for q in out["questions"])
    assert main(["worksheet", "--rows", "30", "--json"]) == 2
    assert "8 to 14 rows" in capsys.readouterr().err
    assert main(["worksheet"]) == 2
    assert "OUT.pdf" in capsys.readouterr().err


def test_worksheet_pdf_puts_the_answer_key_on_its_own_pages(tmp_path, capsys):
    out = tmp_path / "sheet.pdf"
    assert main(["worksheet", "--seed", "2", "--algorithm", "c45", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 5_000
    assert result["pages"] >= 2
    assert main(["worksheet", str(tmp_path / "sheet.txt")]) == 2
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) reads the pages back")
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True).stdout
    pages = text.split("\f")[:-1]  # pdftotext ends every page with a form feed
    assert len(pages) == result["pages"]
    assert "Decision-tree worksheet: C4.5 (seed 2)" in pages[0] and "Answer key" not in pages[0]
    assert all(f"{q['number']}. " in pages[0] for q in result["questions"])
    assert pages[1].lstrip().startswith("Answer key: C4.5, seed 2")
    assert f"1. {result['questions'][0]['answer']}" in pages[1]
