"""The page scripts' types bind them to the wire contract: a field renamed in a model fails
TypeScript's check of the pages.

The types are generated from the published schemas (docs/ws-schema.json, docs/rest-schema.json,
which tests/test_protocol.py holds to the models) by scripts/gen-types, and scripts/check-js
holds the committed file to them. Here copies of the schemas get one model's field renamed (in
each schema that defines the model, as regenerating them would), the types are
generated from the copy into a scratch tree beside a copy of the page scripts, and `tsc` over
that tree must fail on the field; the copy unchanged must pass, or the failure proves nothing.
Needs Node.js and the checkers of package-lock.json (`bash scripts/check-js` installs them).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
WEB: Final = ROOT / "src" / "dicepoker" / "web"
TSC: Final = ROOT / "node_modules" / ".bin" / "tsc"
GENERATOR: Final = ROOT / "node_modules" / "json-schema-to-typescript"
SCHEMAS: Final = ("ws-schema.json", "rest-schema.json")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def checked_pages(tmp_path: Path, rename: tuple[str, str] | None = None) -> str | None:
    """tsc's complaints about the page scripts with types generated from the published schemas,
    `rename` (definition, field) applied to copies first; None when it passes."""
    if not TSC.is_file() or not GENERATOR.is_dir():
        pytest.fail("the page scripts' checkers are missing: run `bash scripts/check-js` first")
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    for name in SCHEMAS:
        schema = json.loads((ROOT / "docs" / name).read_text(encoding="utf-8"))
        if rename is not None and rename[0] in schema["$defs"]:
            definition, field = rename
            model = schema["$defs"][definition]
            model["properties"] = {
                f"{key}_renamed" if key == field else key: value
                for key, value in model["properties"].items()
            }
            model["required"] = [
                f"{key}_renamed" if key == field else key for key in model.get("required", [])
            ]
        (schemas / name).write_text(json.dumps(schema), encoding="utf-8")
    # The pages import their types by a relative path: the scratch tree keeps the layout.
    web = tmp_path / "web"
    shutil.copytree(WEB / "static" / "js", web / "static" / "js")
    (web / "typings").mkdir(parents=True)
    shutil.copy(WEB / "typings" / "page.d.ts", web / "typings" / "page.d.ts")
    subprocess.run(
        ["node", "scripts/gen-types.mjs", str(web / "typings"), str(schemas)],
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    config = {
        "extends": str(ROOT / "tsconfig.json"),
        "include": ["web/static/js/**/*.js", "web/typings/**/*.d.ts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    run = subprocess.run(
        [str(TSC), "-p", str(tmp_path / "tsconfig.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return None if run.returncode == 0 else run.stdout + run.stderr


def test_the_pages_pass_with_types_of_the_published_schemas(tmp_path: Path) -> None:
    assert checked_pages(tmp_path) is None


@pytest.mark.parametrize(
    "rename",
    [
        # The table's chances, which follow each event (game.js).
        ("ChancesMessage", "win_probability"),
        # A zero's cost, said by the sheet, the felt and the move log (common.js).
        ("RulesView", "zero_penalty"),
        # A REST answer: the analysis's biggest swings of the chances (curve.js).
        ("Analysis", "swings"),
    ],
    ids=".".join,
)
def test_a_renamed_field_fails_the_pages(tmp_path: Path, rename: tuple[str, str]) -> None:
    complaints = checked_pages(tmp_path, rename)
    assert complaints is not None, f"tsc passed with {'.'.join(rename)} renamed"
    field = rename[1]
    assert f"Property '{field}' does not exist" in complaints, complaints[:2000]
    assert "web/static/js/" in complaints
