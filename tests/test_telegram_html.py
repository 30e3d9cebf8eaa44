"""Telegram Desktop exports HTML unless told otherwise (messages.html, messages2.html ... in a
ChatExport_<date> folder). chatmem reads the JSON export: an HTML one, named alone, as its
folder or asked for with --platform telegram, stops with one line naming the page and saying
how to export the JSON, instead of "no recognised chat export here"."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGE = """<!DOCTYPE html>
<html>
 <head>
  <meta charset="utf-8"/>
<title>Exported Data</title>
  <link href="css/style.css" rel="stylesheet"/>
 </head>
 <body onload="CheckLocation();">
  <div class="page_wrap">
   <div class="page_header">
    <div class="content">
     <div class="text bold">
Wanderfreunde
     </div>
    </div>
   </div>
   <div class="page_body chat_page">
    <div class="history">
     <div class="message service" id="message-1">
      <div class="body details">
2. März 2024
      </div>
     </div>
     <div class="message default clearfix" id="message7">
      <div class="body">
       <div class="pull_right date details" title="02.03.2024 10:00:00 UTC+01:00">
10:00
       </div>
       <div class="from_name">
Anna Berg
       </div>
       <div class="text">
Hallo zusammen!
       </div>
      </div>
     </div>
    </div>
   </div>
  </div>
 </body>
</html>
"""


@pytest.fixture
def export(tmp_path) -> Path:
    folder = tmp_path / "Telegram Desktop" / "ChatExport_2024-03-02"
    (folder / "css").mkdir(parents=True)
    (folder / "css" / "style.css").write_text("body {}\n")
    (folder / "messages.html").write_text(PAGE, encoding="utf-8")
    return folder


@pytest.mark.parametrize("where, platform", [("folder", None), ("page", None), ("folder", "telegram"),
                                             ("parent", None)])
def test_an_html_export_says_to_export_json(cli, export, where, platform):
    path = {"folder": export, "page": export / "messages.html", "parent": export.parent}[where]
    result = cli("import", path, *(["--platform", platform] if platform else []), expect=None)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{export / 'messages.html'}: Telegram's HTML export" in result.output
    assert "Machine-readable JSON" in result.output


def test_a_json_export_beside_it_is_imported(cli, export, tmp_path):
    (export / "result.json").write_text(
        '{"name": "Wanderfreunde", "type": "private_group", "id": 42, "messages": [{"id": 7, '
        '"type": "message", "date": "2024-03-02T10:00:00", "date_unixtime": "1709370000", '
        '"from": "Anna Berg", "from_id": "user1001", "text": "Hallo zusammen!"}]}', encoding="utf-8")
    cli("import", export)
    assert "Hallo zusammen" in cli("search", "zusammen").output
