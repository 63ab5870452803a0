"""A bot names only files inside its directory, and no refusal quotes a byte of a file outside it.

Every hostile directory is made here, beside a secret file of the test's own (readable by
the test, as /etc/shadow is by root), so that "the secret is not in the message" means
something. Loading is where refusals happen: nothing is installed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.bots import BotConfigError, load_bot
from arena.bots.deps import declared

SECRET = "root:s3cr3t-6f1d2a:19000:0:99999:7:::"
"""The content of the file outside the bot: it must never appear in a message."""


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    path.chmod(0o600)
    return path


def python_bot(directory: Path, requirements: str | None = None, manifest: str = "") -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.yaml").write_text(f'name: hostile\nrun: ["{{python}}", "bot.py"]\n{manifest}')
    (directory / "bot.py").write_text("")
    if requirements is not None:
        (directory / "requirements.txt").write_text(requirements)
    return directory


def node_bot(directory: Path, package: object, lock: object | None = None, npmrc: str | None = None) -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.yaml").write_text('name: hostile\nrun: ["node", "bot.js"]\n')
    (directory / "bot.js").write_text("")
    (directory / "package.json").write_text(json.dumps(package))
    if lock is not None:
        (directory / "package-lock.json").write_text(json.dumps(lock))
    if npmrc is not None:
        (directory / ".npmrc").write_text(npmrc)
    return directory


def refusal(directory: Path) -> str:
    with pytest.raises(BotConfigError) as caught:
        load_bot(str(directory))
    message = str(caught.value)
    assert "\n" not in message, message
    assert SECRET not in message and "s3cr3t" not in message, message
    return message


@pytest.mark.parametrize("line, written, why", [
    ("-r {secret}", "{secret}", "an absolute path"),
    ("-r ../secret.txt", "../secret.txt", "a path leading out of the bot directory"),
    ("--requirement={secret}", "{secret}", "an absolute path"),
    ("--requirement {secret}", "{secret}", "an absolute path"),
    ("-r{secret}", "{secret}", "an absolute path"),
    ("--requ {secret}", "{secret}", "an absolute path"),
    ('-r "{secret}"', "{secret}", "an absolute path"),
    ("-c {secret}", "{secret}", "an absolute path"),
    ("--constraint=../secret.txt", "../secret.txt", "a path leading out of the bot directory"),
    ("-e /tmp/x", "/tmp/x", "an absolute path"),
    ("--find-links /tmp", "/tmp", "an absolute path"),
    ("-f ../", "../", "a path leading out of the bot directory"),
    ("--index-url file:///tmp", "file:///tmp", "an absolute path"),
    ("--extra-index-url=file:../", "file:../", "a path leading out of the bot directory"),
    ("file:///etc", "file:///etc", "an absolute path"),
    ("pkg @ file://localhost{secret}", "file://localhost{secret}", "an absolute path"),
    ("git+file:///srv/repo#egg=pkg", "git+file:///srv/repo#egg=pkg", "an absolute path"),
    ("./../secret.txt", "./../secret.txt", "a path leading out of the bot directory"),
    ("/opt/pkg-1.0-py3-none-any.whl", "/opt/pkg-1.0-py3-none-any.whl", "an absolute path"),
    ("-r ${{HOME}}/.netrc", "${{HOME}}/.netrc", "a ${{VARIABLE}}"),
    ("pkg==1.0 --hash=sha256:${{SECRET}}", "--hash=sha256:${{SECRET}}", "a ${{VARIABLE}}"),
])
def test_a_requirements_line_naming_a_path_outside_is_refused_with_its_line(
        tmp_path: Path, secret: Path, line: str, written: str, why: str) -> None:
    bot = python_bot(tmp_path / "bot", f"# a comment\ncabodep==1.0\n{line.format(secret=secret)}\n")
    message = refusal(bot)
    shown = written.format(secret=secret)
    assert message.startswith(f"{bot / 'requirements.txt'}:3: names {shown!r}, {why.format()}"), message


def test_a_nested_requirements_file_is_checked_and_counted_by_its_own_lines(tmp_path: Path, secret: Path) -> None:
    bot = python_bot(tmp_path / "bot", "-r deps/base.txt\n")
    (bot / "deps").mkdir()
    (bot / "deps" / "base.txt").write_text("cabodep==1.0 \\\n  --hash=sha256:00\n-r ../../secret.txt\n")
    message = refusal(bot)
    assert message.startswith(f"{bot / 'deps' / 'base.txt'}:3: names '../../secret.txt', a path leading out"), message


def test_a_requirements_file_that_is_a_symlink_out_is_refused_unread(tmp_path: Path, secret: Path) -> None:
    bot = python_bot(tmp_path / "bot")
    (bot / "requirements.txt").symlink_to(secret)
    message = refusal(bot)
    assert message.startswith(f"{bot / 'requirements.txt'}: this requirements file is a symlink leading out"), message


def test_a_named_file_that_is_a_symlink_out_is_refused(tmp_path: Path, secret: Path) -> None:
    bot = python_bot(tmp_path / "bot", "-r base.txt\n")
    (bot / "base.txt").symlink_to(secret)
    assert "names 'base.txt', a symlink leading out of the bot directory" in refusal(bot)


def test_a_find_links_folder_holding_a_symlink_out_is_refused(tmp_path: Path, secret: Path) -> None:
    bot = python_bot(tmp_path / "bot", "--no-index\n--find-links wheels\ncabodep==1.0\n")
    (bot / "wheels").mkdir()
    (bot / "wheels" / "cabodep-1.0.tar.gz").symlink_to(secret)
    message = refusal(bot)
    assert message.startswith(f"{bot / 'wheels' / 'cabodep-1.0.tar.gz'}: Python requirements (requirements.txt) "
                              "reads this file, which is a symlink leading out"), message


def test_the_manifests_requirements_key_cannot_name_a_file_outside(tmp_path: Path, secret: Path) -> None:
    for index, named in enumerate((str(secret), "../secret.txt", "link.txt")):
        bot = python_bot(tmp_path / f"bot{index}", manifest=f"requirements: {named}\n")
        (bot / "link.txt").symlink_to(secret)
        assert f"field 'requirements' names {named!r}, which is not a file in the bot directory" in refusal(bot)


def test_a_manifest_that_is_a_symlink_out_is_refused_unread(tmp_path: Path, secret: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.yaml").symlink_to(secret)
    message = refusal(bot)
    assert message == (f"{bot / 'bot.yaml'}: the bot.yaml manifest is a symlink leading out of the bot directory; "
                       "a bot's files must be inside its directory")


def test_a_manifest_symlinked_inside_the_bot_and_its_own_errors_are_fine(tmp_path: Path) -> None:
    bot = python_bot(tmp_path / "bot")
    (bot / "manifests").mkdir()
    (bot / "bot.yaml").rename(bot / "manifests" / "real.yaml")
    (bot / "bot.yaml").symlink_to("manifests/real.yaml")
    assert load_bot(str(bot)).name == "hostile"
    (bot / "manifests" / "real.yaml").write_text("name: hostile\nrun: [x]\nfavourite_colour: blue\n")
    assert "unknown field 'favourite_colour'" in refusal(bot)  # the bot's own file may be quoted


def test_what_works_today_still_works(tmp_path: Path) -> None:
    bot = python_bot(tmp_path / "bot", "-r base.txt\n-c constraints.txt\n--find-links wheels\n"
                                       "./wheels/pkg-1.0-py3-none-any.whl\nother @ file:./wheels/pkg-1.0-py3-none-any.whl\n"
                                       "--trusted-host example.org\n--index-url https://example.org/simple\n"
                                       "numpy==2.1.3 ; python_version >= \"3.10\"  # pinned\n")
    (bot / "base.txt").write_text("cabodep==1.0\n")
    (bot / "constraints.txt").write_text("cabodep<2\n")
    (bot / "wheels").mkdir()
    (bot / "wheels" / "pkg-1.0-py3-none-any.whl").write_text("")
    spec = load_bot(str(bot))
    (deps,) = declared(str(bot), spec.requirements, spec.python, "bot.yaml")
    assert deps.inputs == ("requirements.txt", "base.txt", "constraints.txt", "wheels",
                           "wheels/pkg-1.0-py3-none-any.whl")


def test_node_dependencies_on_paths_outside_are_refused(tmp_path: Path, secret: Path) -> None:
    cases = {
        "package.json: dependencies.a: names 'file:../outside', a path leading out":
            ({"dependencies": {"a": "file:../outside"}}, None, None),
        "package.json: dependencies.a: names 'link:/srv/pkg', an absolute path":
            ({"dependencies": {"a": "link:/srv/pkg"}}, None, None),
        "package.json: optionalDependencies.a: names '~/pkg', a home directory":
            ({"optionalDependencies": {"a": "~/pkg"}}, None, None),
        "package.json: workspaces: names '../other', a path leading out":
            ({"dependencies": {"a": "1.0.0"}, "workspaces": ["../other"]}, {}, None),
        "package-lock.json: packages[\"\"].dependencies.a: names 'file:../outside', a path leading out":
            ({"dependencies": {"a": "1.0.0"}},
             {"lockfileVersion": 3, "packages": {"": {"dependencies": {"a": "file:../outside"}}}}, None),
        "package-lock.json: packages: names '../outside', a path leading out":
            ({"dependencies": {"a": "1.0.0"}}, {"lockfileVersion": 3, "packages": {"": {}, "../outside": {}}}, None),
        ".npmrc:2: names '{secret}', an absolute path":
            ({"dependencies": {"a": "1.0.0"}}, {}, "registry=https://registry.npmjs.org/\ncafile={secret}\n"),
        ".npmrc:1: names 'file:///srv/mirror', an absolute path":
            ({"dependencies": {"a": "1.0.0"}}, {}, "registry=file:///srv/mirror\n"),
        ".npmrc:1: names '../certs/ca.pem', a path leading out":
            ({"dependencies": {"a": "1.0.0"}}, {}, "//registry.example.org/:certfile = ../certs/ca.pem\n"),
        ".npmrc:1: names '//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}', a $ variable":
            ({"dependencies": {"a": "1.0.0"}}, {}, "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}\n"),
    }
    for index, (expected, (package, lock, npmrc)) in enumerate(cases.items()):
        bot = node_bot(tmp_path / f"bot{index}", package, lock, None if npmrc is None else npmrc.format(secret=secret))
        message = refusal(bot)
        assert message.startswith(f"{bot}/{expected.format(secret=secret)}"), message


@pytest.mark.parametrize("name", ["package.json", "package-lock.json", ".npmrc"])
def test_node_files_that_are_symlinks_out_are_refused_unread(tmp_path: Path, secret: Path, name: str) -> None:
    bot = node_bot(tmp_path / "bot", {"dependencies": {"a": "1.0.0"}}, {}, "")
    os.remove(bot / name)
    (bot / name).symlink_to(secret)
    message = refusal(bot)
    assert message.startswith(f"{bot / name}: this "), message
    assert "is a symlink leading out of the bot directory" in message


def test_node_paths_inside_the_bot_still_work(tmp_path: Path) -> None:
    bot = node_bot(tmp_path / "bot", {"dependencies": {"localdep": "file:./vendor/localdep", "left-pad": "^1.3.0"}},
                   {"lockfileVersion": 3, "packages": {"": {}, "vendor/localdep": {"version": "1.0.0"},
                                                       "node_modules/localdep": {"resolved": "vendor/localdep",
                                                                                 "link": True}}},
                   "cafile=certs/ca.pem\nprefer-offline=true\n")
    (bot / "vendor" / "localdep").mkdir(parents=True)
    (bot / "vendor" / "localdep" / "package.json").write_text("{}")
    (deps,) = declared(str(bot), None, None, "bot.yaml")
    assert deps.inputs == ("package.json", "package-lock.json", ".npmrc", "vendor/localdep")
