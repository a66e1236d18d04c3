"""Uploaded Dockerfiles may not make the Docker daemon fetch images or URLs."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.dockerfile_policy import check_dockerfile, instructions
from arena.server.uploads import UploadError

from .archives import TINY_DOCKERFILE

REFUSED = [
    ("other image", "FROM python:3.11-slim\n",
     "the Dockerfile's line 1: FROM 'python:3.11-slim' would fetch an image; build FROM "
     "${BASE} (the arena's base image), scratch or an earlier stage"),
    ("other variable", "ARG IMAGE=alpine\nFROM ${IMAGE}\n",
     "the Dockerfile's line 2: FROM '${IMAGE}' would fetch an image; build FROM ${BASE} "
     "(the arena's base image), scratch or an earlier stage"),
    ("platform option", "FROM --platform=linux/arm64 ${BASE}\n",
     "the Dockerfile's line 1: FROM takes no options in uploads; build FROM ${BASE} "
     "(the arena's base image), scratch or an earlier stage"),
    ("copy from an image", "FROM ${BASE}\nCOPY --from=busybox:latest /bin/sh /sh\n",
     "the Dockerfile's line 2: COPY --from='busybox:latest' would fetch an image; copy from "
     "an earlier stage"),
    ("copy from a later stage index", "FROM ${BASE}\nCOPY --from=1 /a /b\n",
     "the Dockerfile's line 2: COPY --from='1' would fetch an image; copy from an earlier "
     "stage"),
    ("add a url", "FROM ${BASE}\nADD https://example.com/x.tgz /x\n",
     "the Dockerfile's line 2: ADD from a URL, a git repository or a variable is not allowed "
     "in uploads; put the files in the bot's folder"),
    ("add json url", 'FROM ${BASE}\nADD ["http://example.com/x", "/x"]\n',
     "the Dockerfile's line 2: ADD from a URL"),
    ("add a variable", "FROM ${BASE}\nARG SOURCE=http://example.com\nADD ${SOURCE} /x\n",
     "the Dockerfile's line 3: ADD from a URL"),
    ("add git", "FROM ${BASE}\nADD git@github.com:a/b.git /b\n",
     "the Dockerfile's line 2: ADD from a URL"),
    ("continued lines", "FROM ${BASE}\nRUN true\nADD \\\n  # a comment\n  http://x/y \\\n  /y\n",
     "the Dockerfile's line 3: ADD from a URL"),
    ("onbuild", "FROM ${BASE}\nONBUILD ADD http://x/y /y\n",
     "the Dockerfile's line 2: ADD from a URL"),
]


@pytest.mark.parametrize(("text", "expected"), [(text, expected) for _, text, expected in REFUSED],
                         ids=[name for name, _, _ in REFUSED])
def test_fetching_dockerfile_is_refused(tmp_path: Path, text: str, expected: str) -> None:
    """Each way of making the daemon fetch something gets its own one-line refusal."""
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    with pytest.raises(UploadError) as raised:
        check_dockerfile(path)
    assert str(raised.value).startswith(expected), str(raised.value)


ALLOWED = [
    TINY_DOCKERFILE,
    "FROM $BASE\nADD bot.tar.gz /bot/\n",
    "FROM scratch\nCOPY bot /bot\n",
    "ARG BASE\nFROM ${BASE} AS build\nRUN make\nFROM build\nCOPY --from=build /out /bot\n"
    "COPY --from=0 /out /bot2\n",
    "# escape=`\nFROM ${BASE}\nRUN echo a `\n  b\nCOPY [\"a b\", \"/c\"]\n",
]


@pytest.mark.parametrize("text", ALLOWED)
def test_local_dockerfile_is_allowed(tmp_path: Path, text: str) -> None:
    """The base image, scratch, earlier stages and local files pass."""
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    check_dockerfile(path)


def test_instructions_follow_continuations_and_the_escape_directive() -> None:
    """Logical lines join continued lines, skip comments and honour `# escape=`."""
    text = "# escape=`\n# note\nFROM x AS y\n\nRUN a `\n  # inside\n  b\ncopy --from=y a b\n"
    assert instructions(text) == [(3, "FROM", "x AS y"), (5, "RUN", "a  b"),
                                  (8, "COPY", "--from=y a b")]


def test_dockerfile_not_text(tmp_path: Path) -> None:
    """A Dockerfile that is not UTF-8 is refused in one line."""
    path = tmp_path / "Dockerfile"
    path.write_bytes(b"FROM \xff\xfe\n")
    with pytest.raises(UploadError, match=r"^the Dockerfile is not UTF-8 text$"):
        check_dockerfile(path)
